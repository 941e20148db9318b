// Fresh case (issue 36, a compound classifier condition): the RetryIf retries exactly
// the context's errors, behind err != nil &&.
package compound

import (
	"context"
	"errors"

	retry "github.com/avast/retry-go/v4"
)

func syncBucket(ctx context.Context, sync func(context.Context) error) error {
	return retry.Do(
		func() error { return sync(ctx) },
		retry.Attempts(5),
		retry.RetryIf(func(err error) bool {
			return err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) // want `context.Canceled classified as retryable`
		}),
	)
}
