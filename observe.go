package retry

import (
	"context"
	"log/slog"
)

// Observer receives a loop's decisions, as Policy.OnDecision: every one, in order, on the
// loop's goroutine, with the loop's context. It must not block for long, and must be safe for
// concurrent use when the policy serves several loops at once.
type Observer func(ctx context.Context, d Decision)

// Observers returns an Observer that calls each of observers in turn, skipping nil ones; nil
// when none is left.
func Observers(observers ...Observer) Observer {
	var set []Observer
	for _, o := range observers {
		if o != nil {
			set = append(set, o)
		}
	}
	switch len(set) {
	case 0:
		return nil
	case 1:
		return set[0]
	}
	return func(ctx context.Context, d Decision) {
		for _, o := range set {
			o(ctx, d)
		}
	}
}

// LogDecisions returns an Observer that logs every decision to logger, with the loop's context
// (so a slog.Handler can add a request ID or a trace ID from it): a retry at level Debug with
// the message "retry", a stop at level Info with "retry stop", whatever its reason, and an
// attempt of a hedged round whose answer was not used (Decision.Lost) at level Debug with
// "retry lost", the record under the key "decision" (see [Decision.LogValue]). Package
// otelretry/stdobs has an observer that chooses other levels. A nil logger logs nothing.
func LogDecisions(logger *slog.Logger) Observer {
	if logger == nil {
		return nil
	}
	return func(ctx context.Context, d Decision) {
		level, msg := slog.LevelInfo, "retry stop"
		switch {
		case d.Retry:
			level, msg = slog.LevelDebug, "retry"
		case d.Lost:
			level, msg = slog.LevelDebug, "retry lost"
		}
		if logger.Enabled(ctx, level) {
			logger.LogAttrs(ctx, level, msg, slog.Any("decision", d))
		}
	}
}

// report sends d to the policy's observer; ctx is the loop's context. It is not inlined, so
// that the copy of d it passes lives in its own frame: a loop parked in a wait keeps only
// its caller's frame on the stack.
//
//go:noinline
func (p *Policy) report(ctx context.Context, d *Decision) {
	if p.OnDecision != nil {
		p.OnDecision(ctx, *d)
	}
}
