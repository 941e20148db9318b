package nested

import (
	"context"

	"github.com/cenkalti/backoff/v4"
	"github.com/retrykit/retry"
)

func backoffInRetryDo(ctx context.Context, call func() error) error {
	return retry.Do(ctx, &retry.Policy{MaxAttempts: 4}, func(ctx context.Context) error {
		return backoff.Retry(call, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 2)) // want `nested retries: backoff.Retry at backoff_in_retrydo.go:12 runs inside each attempt of retry.Do \(line 11\): 4 × 3 = 12 calls when every attempt fails`
	})
}
