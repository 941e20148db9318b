package attemptctx

import (
	"context"

	"github.com/retrykit/retry"
)

func underscoreParam(ctx context.Context, call func(context.Context) error) error {
	return retry.Do(ctx, nil, func(_ context.Context) error {
		return call(ctx) // want `the attempt function of retry.Do uses the outer ctx instead of its own context parameter`
	})
}
