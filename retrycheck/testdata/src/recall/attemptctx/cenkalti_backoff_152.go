// Seeded from https://github.com/cenkalti/backoff/issues/152: a retry API that takes a
// context should pass the operation a derived one, or work started by an attempt outlives
// the retry; here the attempt ignores the context it is given.
package attemptctx

import (
	"context"

	"github.com/retrykit/retry"
)

func watch(ctx context.Context, start func(context.Context) (<-chan struct{}, error)) (<-chan struct{}, error) {
	return retry.DoValue(ctx, nil, func(context.Context) (<-chan struct{}, error) {
		return start(ctx) // want `the attempt function of retry.DoValue uses the outer ctx`
	})
}
