package stdobs

import (
	"context"
	"log/slog"

	"github.com/retrykit/retry"
)

// SlogHook returns a Policy.OnDecision hook that logs every decision to l (nil: slog.Default())
// with the decision record under the key "decision" (retry.Decision is a slog.LogValuer):
// a retry at level Debug with message "retry", a success at Info with "retry stop", and any
// other stop at Warn with "retry stop", so a handler at Info shows the loops that gave up and
// not the retries on the way. Unlike Policy.Logger, whose stops all log at Info, it tells
// failures by their level. It logs nothing a disabled level would drop, and allocates only
// when the level is enabled. Safe for concurrent use when l is.
func SlogHook(l *slog.Logger) func(retry.Decision) {
	if l == nil {
		l = slog.Default()
	}
	return func(d retry.Decision) {
		level, msg := slog.LevelWarn, "retry stop"
		switch {
		case d.Retry:
			level, msg = slog.LevelDebug, "retry"
		case d.Reason == retry.ReasonSuccess:
			level = slog.LevelInfo
		}
		ctx := context.Background()
		if l.Enabled(ctx, level) {
			l.LogAttrs(ctx, level, msg, slog.Any("decision", d))
		}
	}
}

// Chain returns one hook that calls each non-nil hook in order, for a Policy.OnDecision that
// feeds several consumers (metrics, logs, the caller's own hook). It returns nil when no hook
// is given, so a policy then pays nothing.
func Chain(hooks ...func(retry.Decision)) func(retry.Decision) {
	var hs []func(retry.Decision)
	for _, h := range hooks {
		if h != nil {
			hs = append(hs, h)
		}
	}
	switch len(hs) {
	case 0:
		return nil
	case 1:
		return hs[0]
	}
	return func(d retry.Decision) {
		for _, h := range hs {
			h(d)
		}
	}
}
