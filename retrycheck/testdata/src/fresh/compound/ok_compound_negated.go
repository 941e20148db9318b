// Fresh case (issue 36, a compound classifier condition): not a finding. The context's
// errors are excluded, not retried.
package compound

import (
	"context"
	"errors"

	retry "github.com/avast/retry-go/v4"
)

func pull(ctx context.Context, fetch func() error) error {
	return retry.Do(fetch,
		retry.Context(ctx),
		retry.RetryIf(func(err error) bool {
			return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
		}))
}
