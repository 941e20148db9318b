package unbounded

import (
	"context"

	"github.com/retrykit/retry"
)

func oursUnlimited(ctx context.Context, op func(context.Context) error) error {
	p := &retry.Policy{MaxAttempts: retry.NoLimit, Timeout: retry.NoLimit}
	return retry.Do(ctx, p, op) // want `retry.Do is configured with no attempt bound and no deadline`
}
