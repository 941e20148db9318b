// Seeded from https://github.com/Layr-Labs/eigenda/pull/18: every retry reused a context
// that had already timed out, so all retry attempts failed; each attempt needs a context
// of its own.
package attemptctx

import (
	"context"
	"time"

	"github.com/retrykit/retry"
)

func finalize(ctx context.Context, rpc func(context.Context) error) error {
	policy := &retry.Policy{MaxAttempts: 4, AttemptTimeout: 5 * time.Second}
	return retry.Do(ctx, policy, func(attemptCtx context.Context) error {
		return rpc(ctx) // want `the attempt function of retry.Do uses the outer ctx instead of its own context parameter`
	})
}
