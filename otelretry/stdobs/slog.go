package stdobs

import (
	"context"
	"log/slog"

	"github.com/retrykit/retry"
)

// SlogLevels are the levels at which [SlogContextHook] logs decisions.
type SlogLevels struct {
	// Retry is the level of a decision to retry.
	Retry slog.Level
	// Success is the level of a stop with retry.ReasonSuccess. Set it below Failure (for
	// example to slog.LevelDebug) to keep every successful call out of an Info log.
	Success slog.Level
	// Failure is the level of every other stop: a loop that gave up.
	Failure slog.Level
}

// DefaultSlogLevels are [SlogHook]'s levels: a retry at Debug, a success at Info, any other
// stop at Warn, so a handler at Info shows the loops that ended and not the retries on the
// way, and one at Warn only the loops that gave up.
var DefaultSlogLevels = SlogLevels{Retry: slog.LevelDebug, Success: slog.LevelInfo, Failure: slog.LevelWarn}

// SlogContextHook returns a Policy.OnDecisionContext hook that logs every decision to l (nil:
// slog.Default()) with the loop's context, so a handler can add what the context carries (a
// request ID, a trace ID), and with the decision record under the key "decision"
// (retry.Decision is a slog.LogValuer): a retry with message "retry", a stop with "retry
// stop", each at its level in levels (DefaultSlogLevels for SlogHook's). It logs nothing a
// disabled level would drop, and allocates only when the level is enabled. Safe for
// concurrent use when l is.
func SlogContextHook(l *slog.Logger, levels SlogLevels) func(context.Context, retry.Decision) {
	if l == nil {
		l = slog.Default()
	}
	return func(ctx context.Context, d retry.Decision) {
		level, msg := levels.Failure, "retry stop"
		switch {
		case d.Retry:
			level, msg = levels.Retry, "retry"
		case d.Reason == retry.ReasonSuccess:
			level = levels.Success
		}
		if l.Enabled(ctx, level) {
			l.LogAttrs(ctx, level, msg, slog.Any("decision", d))
		}
	}
}

// SlogHook returns a Policy.OnDecision hook that logs every decision to l (nil:
// slog.Default()) at the [DefaultSlogLevels], as [SlogContextHook] does but with
// context.Background(), since OnDecision gets no context. Unlike Policy.Logger, whose stops
// all log at Info, it tells failures by their level. Prefer SlogContextHook as
// Policy.OnDecisionContext when the handler reads the context.
func SlogHook(l *slog.Logger) func(retry.Decision) {
	hook := SlogContextHook(l, DefaultSlogLevels)
	return func(d retry.Decision) { hook(context.Background(), d) }
}

// Chain returns one hook that calls each non-nil hook in order, for a Policy.OnDecision that
// feeds several consumers (metrics, logs, the caller's own hook). It returns nil when no hook
// is given, so a policy then pays nothing.
func Chain(hooks ...func(retry.Decision)) func(retry.Decision) {
	return chain(hooks, func(hs []func(retry.Decision)) func(retry.Decision) {
		return func(d retry.Decision) {
			for _, h := range hs {
				h(d)
			}
		}
	})
}

// ChainContext is [Chain] for Policy.OnDecisionContext hooks: one hook that calls each
// non-nil hook in order with the same context; nil when no hook is given.
func ChainContext(hooks ...func(context.Context, retry.Decision)) func(context.Context, retry.Decision) {
	return chain(hooks, func(hs []func(context.Context, retry.Decision)) func(context.Context, retry.Decision) {
		return func(ctx context.Context, d retry.Decision) {
			for _, h := range hs {
				h(ctx, d)
			}
		}
	})
}

// chain drops the nil hooks; it returns nil for none, the hook itself for one, and all's
// hook calling them in order for several.
func chain[H func(retry.Decision) | func(context.Context, retry.Decision)](hooks []H, all func([]H) H) H {
	var hs []H
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
	return all(hs)
}
