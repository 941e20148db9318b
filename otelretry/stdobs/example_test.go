package stdobs_test

import (
	"context"
	"log/slog"
	"os"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/otelretry/stdobs"
)

// Log decisions with the loop's context, a success at Debug so that an Info log shows only
// the loops that gave up.
func ExampleSlogObserver() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey || len(groups) == 1 && a.Key != "reason" {
				return slog.Attr{} // keep the example's output stable
			}
			return a
		}}))
	levels := stdobs.DefaultSlogLevels
	levels.Success = slog.LevelDebug
	policy := &retry.Policy{MaxAttempts: 1, OnDecision: stdobs.SlogObserver(logger, levels)}

	_ = retry.Do(context.Background(), policy, func(context.Context) error { return nil })
	_ = retry.Do(context.Background(), policy, func(context.Context) error { return retry.Permanent(context.Canceled) })
	// Output:
	// level=WARN msg="retry stop" decision.reason=non_retryable_error
}
