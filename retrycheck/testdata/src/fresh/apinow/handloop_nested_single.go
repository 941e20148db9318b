// Fresh case (issue 36, our API as it is): NestedSingleAttempt only tells a loop of this
// project inside another of its loops to make one attempt. Under a hand-written loop it
// still makes its four.
package apinow

import (
	"context"
	"time"

	"github.com/retrykit/retry"
)

var inner = &retry.Policy{MaxAttempts: 4, Nested: retry.NestedSingleAttempt}

func refreshLoop(ctx context.Context, refresh func(context.Context) error) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = retry.Do(ctx, inner, refresh); err == nil { // want `nested retries: retry.Do at handloop_nested_single.go:18 runs inside each attempt of a hand-written retry loop \(line 17\): 3 × 4 = 12 calls`
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}
