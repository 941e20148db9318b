package stdobs

import (
	"context"
	"log/slog"

	"github.com/retrykit/retry"
)

// SlogLevels are the levels at which [SlogObserver] logs decisions.
type SlogLevels struct {
	// Retry is the level of a decision to retry.
	Retry slog.Level
	// Success is the level of a stop with retry.ReasonSuccess. Set it below Failure (for
	// example to slog.LevelDebug) to keep every successful call out of an Info log.
	Success slog.Level
	// Failure is the level of every other stop: a loop that gave up.
	Failure slog.Level
}

// DefaultSlogLevels are levels that tell a failure from a success: a retry at Debug, a
// success at Info, any other stop at Warn, so a handler at Info shows the loops that ended
// and not the retries on the way, and one at Warn only the loops that gave up.
var DefaultSlogLevels = SlogLevels{Retry: slog.LevelDebug, Success: slog.LevelInfo, Failure: slog.LevelWarn}

// SlogObserver returns a retry.Observer that logs every decision to l (nil: slog.Default())
// with the loop's context, so a handler can add what the context carries (a request ID, a
// trace ID), and with the decision record under the key "decision" (retry.Decision is a
// slog.LogValuer): a retry with message "retry", a stop with "retry stop", each at its level
// in levels, and an attempt of a hedged round whose answer was not used (Decision.Lost)
// with "retry lost" at the level of a retry. Unlike retry.LogDecisions, whose stops all log at Info, it can tell failures by
// their level. It logs nothing a disabled level would drop, and allocates only when the level
// is enabled. Safe for concurrent use when l is.
func SlogObserver(l *slog.Logger, levels SlogLevels) retry.Observer {
	if l == nil {
		l = slog.Default()
	}
	return func(ctx context.Context, d retry.Decision) {
		level, msg := levels.Failure, "retry stop"
		switch {
		case d.Retry:
			level, msg = levels.Retry, "retry"
		case d.Lost:
			level, msg = levels.Retry, "retry lost"
		case d.Reason == retry.ReasonSuccess:
			level = levels.Success
		}
		if l.Enabled(ctx, level) {
			l.LogAttrs(ctx, level, msg, slog.Any("decision", d))
		}
	}
}
