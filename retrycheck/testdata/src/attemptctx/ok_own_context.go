package attemptctx

import (
	"context"
	"log/slog"

	"github.com/retrykit/retry"
	goretry "github.com/sethvargo/go-retry"
)

type key struct{}

// The attempt's own context is used; the outer one only to log and to read a value.
func ownContext(ctx context.Context, call func(context.Context) error) error {
	return retry.Do(ctx, nil, func(attempt context.Context) error {
		slog.InfoContext(ctx, "attempt", "id", ctx.Value(key{}))
		return call(attempt)
	})
}

// Shadowed: ctx is the parameter.
func shadowed(ctx context.Context, call func(context.Context) error) error {
	return retry.Do(ctx, nil, func(ctx context.Context) error { return call(ctx) })
}

// go-retry passes the caller's context to every attempt: the outer one is the same.
func sameContext(ctx context.Context, call func(context.Context) error) error {
	return goretry.Do(ctx, goretry.NewConstant(1), func(_ context.Context) error { return call(ctx) })
}

// Both contexts, each for its purpose: the loop's to stop, the attempt's to bound it.
func both(ctx context.Context, run func(loop, attempt context.Context) error) error {
	return retry.Do(ctx, nil, func(actx context.Context) error { return run(ctx, actx) })
}
