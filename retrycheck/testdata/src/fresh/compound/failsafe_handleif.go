// Fresh case (issue 36, a compound classifier condition): failsafe-go's HandleIf.
package compound

import (
	"context"
	"errors"
	"strings"

	"github.com/failsafe-go/failsafe-go/retrypolicy"
)

func queryPolicy() retrypolicy.RetryPolicy[[]byte] {
	return retrypolicy.Builder[[]byte]().
		WithMaxRetries(3).
		HandleIf(func(_ []byte, err error) bool {
			return err != nil && (strings.Contains(err.Error(), "timeout") || errors.Is(err, context.DeadlineExceeded)) // want `context.DeadlineExceeded classified as retryable`
		}).
		Build()
}
