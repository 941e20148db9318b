// Fresh case (issue 36, our API as it is): retry.Do (default policy, 3 attempts) inside
// an attempt of RunIn (5 attempts).
package apinow

import (
	"context"

	"github.com/retrykit/retry"
)

type syncer struct {
	l retry.Loop
}

func (s *syncer) push(ctx context.Context, upload func(context.Context) error) error {
	_, f, err := retry.RunIn(ctx, &s.l, &retry.Policy{MaxAttempts: 5}, retry.Operation[bool]{
		Attempt: func(ctx context.Context) (bool, retry.Outcome) {
			err := retry.Do(ctx, nil, upload) // want `nested retries: retry.Do at runin_nested_do.go:18 runs inside each attempt of retry.RunIn \(line 16\): 5 × 3 = 15 calls`
			return err == nil, retry.Outcome{Err: err}
		},
	})
	f.End()
	return err
}
