// Fresh case (issue 36, our API as it is): a hedged RunConcurrent whose attempt runs a
// cenkalti/backoff loop of its own: every hedge and every retry multiplies.
package apinow

import (
	"context"
	"errors"

	"github.com/cenkalti/backoff/v4"
	"github.com/retrykit/retry"
)

var errEmpty = errors.New("empty answer")

func lookupHedged(ctx context.Context, p *retry.Policy, resolve func(context.Context) (string, error)) (string, error) {
	v, final, err := retry.RunConcurrent(ctx, p, retry.Operation[string]{
		Attempt: func(ctx context.Context) (string, retry.Outcome) {
			var out string
			err := backoff.Retry(func() error { // want `nested retries: backoff.Retry at runconcurrent_backoff.go:19 runs inside each attempt of retry.RunConcurrent`
				s, err := resolve(ctx)
				if err != nil {
					return err
				}
				if s == "" {
					return errEmpty
				}
				out = s
				return nil
			}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3))
			return out, retry.Outcome{Err: err}
		},
	})
	final.End()
	return v, err
}
