// Seeded from https://github.com/filecoin-saturn/caboose/pull/82: "don't keep retrying on
// context errors".
package cancel

import (
	"context"

	"github.com/failsafe-go/failsafe-go/retrypolicy"
)

func fetchPolicy() retrypolicy.RetryPolicy[[]byte] {
	return retrypolicy.Builder[[]byte]().
		HandleErrors(context.DeadlineExceeded). // want `context.DeadlineExceeded handled as retryable`
		WithMaxRetries(3).
		Build()
}
