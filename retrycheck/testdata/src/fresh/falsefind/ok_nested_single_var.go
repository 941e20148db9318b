// Fresh case (issue 36, false findings): not a finding. The nested policy is a variable
// set field by field, and the inner loop is RunIn.
package falsefind

import (
	"context"

	"github.com/retrykit/retry"
)

type worker struct {
	inner retry.Loop
	pol   retry.Policy
}

func newWorker() *worker {
	w := &worker{}
	w.pol.MaxAttempts = 4
	w.pol.Nested = retry.NestedSingleAttempt
	return w
}

func (w *worker) step(ctx context.Context, do func(context.Context) error) error {
	return retry.Do(ctx, nil, func(ctx context.Context) error {
		_, fin, err := retry.RunIn(ctx, &w.inner, &w.pol, retry.Operation[int]{
			Attempt: func(ctx context.Context) (int, retry.Outcome) { return 0, retry.Outcome{Err: do(ctx)} },
		})
		fin.End()
		return err
	})
}
