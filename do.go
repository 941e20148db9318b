package retry

import (
	"context"
	"errors"
	"time"
)

// ErrNilOperation is returned, before anything runs, by a loop given a nil operation (or
// DoFallback a nil fallback).
var ErrNilOperation = errors.New("retry: the operation is nil")

// Do calls op until it succeeds or p says stop, and returns nil on success or an [*Error]
// saying why it stopped. A nil p means the zero Policy (all defaults). When ctx has ended
// already, Do runs nothing and stops with ReasonCanceled (or ReasonDeadlineExceeded) after 0
// attempts. An invalid p gives an error matching ErrInvalidPolicy, a nil op ErrNilOperation.
//
// Each attempt gets a context whose deadline is the earlier of the attempt's own timeout and
// the loop's deadline, so the deadline also cancels work in flight (SPEC R2.2, R2.5). Between
// attempts Do waits on a timer that ctx interrupts at once (SPEC R2.8); a zero wait creates
// no timer. Before waiting it checks that the wait leaves a useful attempt (SPEC R2.3, see
// [Decide]) and after waking it checks the deadline again, since the process may have been
// suspended (SPEC R2.4).
//
// Which clock (SPEC R2.6): times come from the time package. Deadlines, elapsed times and
// waits use Go's monotonic clock, which wall-clock changes (NTP steps, a user setting the
// date) do not move. On Linux the monotonic clock stops while the machine is suspended, so a
// wait that spans a suspension lasts longer in real time than asked. That is why, around
// every wait, the loop also reads CLOCK_BOOTTIME, which counts suspended time and is never
// set, and after the wait counts the time suspended as gone: a laptop that slept through the
// deadline stops with ReasonDeadlineExceeded instead of starting an attempt nobody is
// waiting for (SPEC R2.4), while a wall clock stepped forward during a wait changes nothing.
// On other platforms, where the standard library offers no boot clock, the wall clock
// stands in for it: a suspension is caught, but a wall-clock step forward during a wait
// reads as a suspension of the same length. The Timeout is a bound on the loop's duration
// enforced through these checks and the attempts' context deadlines; it does not interrupt
// the operation's own code except through that context.
//
// Do returns when op has returned and the loop has decided: no goroutine or timer of the
// loop outlives the call. An attempt on which the loop imposes a deadline of its own has a
// context of its own, canceled when op returns; an attempt already bounded by the caller's
// context (the policy has no Timeout or AttemptTimeout, or the caller's deadline comes
// first) runs with the caller's context, marked for [InLoop], so that a loop that needs no
// timer allocates nothing: work such an attempt leaves behind ends with the caller's context.
func Do(ctx context.Context, p *Policy, op func(ctx context.Context) error) error {
	if op == nil {
		return ErrNilOperation
	}
	_, attempt, err := run(ctx, p, func(ctx context.Context) (struct{}, Outcome) {
		return struct{}{}, Outcome{Err: op(ctx)}
	}, nil)
	attempt.end()
	return err
}

// DoValue is [Do] for an operation that returns a value: it returns the value of the last
// attempt, which is the successful one when the error is nil, or the zero T when the loop
// stopped without a new attempt (a wait cut short, a breaker's refusal).
func DoValue[T any](ctx context.Context, p *Policy, op func(ctx context.Context) (T, error)) (T, error) {
	if op == nil {
		var zero T
		return zero, ErrNilOperation
	}
	v, attempt, err := run(ctx, p, func(ctx context.Context) (T, Outcome) {
		v, err := op(ctx)
		return v, Outcome{Err: err}
	}, nil)
	attempt.end()
	return v, err
}

// DoFallback is [DoValue] with a fallback that turns a final failure into a value (SPEC
// R7.1): when the loop stops for any reason but success, fallback is called with ctx and the
// loop's [*Error], and its results are returned. An invalid policy or a nil op or fallback
// is returned as an error without calling fallback.
func DoFallback[T any](ctx context.Context, p *Policy, op func(ctx context.Context) (T, error),
	fallback func(ctx context.Context, err error) (T, error)) (T, error) {
	if fallback == nil {
		var zero T
		return zero, ErrNilOperation
	}
	v, err := DoValue(ctx, p, op)
	if _, stopped := err.(*Error); !stopped {
		return v, err // success, an invalid policy or a nil op
	}
	return fallback(ctx, err)
}

// Run is the general form of the loop, for operations that report more than an error, such
// as an HTTP transport (package retryhttp): op returns a value and an [Outcome] with its
// status and any server-requested wait. When the loop retries, it passes the discarded value
// to discard (if not nil), for example to drain and close a response body.
//
// Run returns the last attempt's value, which it does not discard, even when it also returns
// an error (so a response refused by policy still reaches the caller); when the loop stops
// without a new attempt (a wait cut short, a breaker's refusal) the previous value has been
// discarded and Run returns the zero T. It also returns final, whose End method ends the last
// attempt's context. That context stays alive until then, so a response body can still be
// read; call final.End once done with the value.
func Run[T any](ctx context.Context, p *Policy, op func(ctx context.Context) (T, Outcome),
	discard func(T)) (value T, final Final, err error) {
	if op == nil {
		return value, final, ErrNilOperation
	}
	v, attempt, err := run(ctx, p, op, discard)
	return v, Final{attempt}, err
}

// Final is the last attempt of a [Run]. It is a small value that costs no allocation; the
// zero Final is valid.
type Final struct {
	attempt *attemptContext // nil when the attempt ran with the caller's own context
}

// End ends the last attempt's context. It is idempotent and safe for concurrent use; on the
// zero Final, or when the attempt ran with the caller's own context, it does nothing.
func (f Final) End() { f.attempt.end() }

func run[T any](ctx context.Context, p *Policy, op func(context.Context) (T, Outcome), discard func(T)) (T, *attemptContext, error) {
	var value, zero T
	if p == nil {
		p = &defaultPolicy
	}
	callerDeadline, callerHasDeadline := ctx.Deadline()
	start := time.Now()
	var marked *markedContext // shared by the attempts that need no deadline of their own
	// attemptContextFor returns the context of an attempt bounded by deadline: the caller's,
	// marked, when the loop imposes no deadline of its own on it, else an attemptContext.
	attemptContextFor := func(deadline time.Time) (*attemptContext, context.Context) {
		if deadline.IsZero() || (callerHasDeadline && !callerDeadline.After(deadline)) {
			if marked == nil {
				marked = markContext(ctx)
			}
			return nil, marked
		}
		attempt := newAttemptContext(ctx, deadline)
		return attempt, attempt
	}

	// The usual case first: when no hook, logger, metrics, breaker or budget is in the way,
	// the first attempt runs before the Loop is built, and a success, the common outcome,
	// returns without one (a Loop is some 650 bytes to clear and fill, and the nesting check
	// a context lookup). A failure builds the Loop as if it had started that attempt.
	var attempt *attemptContext
	var firstOutcome *Outcome
	if p.decisionsUnread() {
		if err := p.Validate(); err != nil {
			return zero, nil, err
		}
		if ctx.Err() == nil {
			var attemptCtx context.Context
			attempt, attemptCtx = attemptContextFor(p.attemptDeadline(p.loopDeadline(start, callerDeadline), start))
			var o Outcome
			value, o = op(attemptCtx)
			if o.Class = p.Classify(o); o.Class == ClassSuccess { // once: a classifier is called once an attempt
				return value, attempt, nil // nobody will read this decision: skip the clock and Decide
			}
			firstOutcome = &o
		}
	}

	var l Loop
	if err := l.start(p, start, callerDeadline, InLoop(ctx)); err != nil {
		return zero, nil, err
	}
	if firstOutcome == nil && ctx.Err() != nil { // the caller gave up before the first attempt
		return zero, nil, p.interrupted(ctx, &l)
	}
	// Without a deadline, an attempt timeout or anyone watching, the clock matters only for
	// the final Error's Elapsed: the loop then reads it at the start and at the stop alone.
	clockFree := l.s.Deadline.IsZero() && p.AttemptTimeout <= 0 && p.unobserved()
	now := l.s.Now
	for {
		step := l.Next(now)
		switch step.Action {
		case ActionStop:
			d := l.Decision()
			if clockFree {
				d.Elapsed = time.Since(l.s.Start)
			}
			p.report(ctx, &d)
			return zero, nil, stopError(ctx, &d)
		case ActionWait:
			if !l.sleep(ctx, step.Wait) {
				return zero, nil, p.interrupted(ctx, &l)
			}
			now = time.Now()
			continue
		}

		var o Outcome
		if firstOutcome != nil { // attempt 1 ran before the Loop was built, as step says
			o, firstOutcome = *firstOutcome, nil
		} else {
			var attemptCtx context.Context
			attempt, attemptCtx = attemptContextFor(step.Deadline)
			value, o = op(attemptCtx)
			o.Class = p.Classify(o) // once: a user's classifier is called once an attempt
			if o.Class == ClassSuccess && p.decisionsUnread() {
				return value, attempt, nil // nobody will read this decision: skip the clock and Decide
			}
		}
		if !clockFree {
			now = time.Now()
		}
		d := l.done(now, o, ctx.Err())
		p.report(ctx, d)
		if !d.Retry {
			if clockFree {
				d.Elapsed = time.Since(l.s.Start)
			}
			return value, attempt, stopError(ctx, d)
		}
		if discard != nil {
			discard(value) // before end: draining a response body needs its context
		}
		attempt.end()
		if !l.sleep(ctx, d.Wait) {
			return zero, nil, p.interrupted(ctx, &l)
		}
		if !clockFree && (d.Wait > 0 || discard != nil || !p.unobserved()) {
			now = time.Now() // else nothing ran since the clock was read after the attempt
		}
	}
}

// interrupted records and returns the stop of a loop whose wait ctx cut short.
func (p *Policy) interrupted(ctx context.Context, l *Loop) error {
	d := l.Interrupt(time.Now(), ctx.Err())
	p.report(ctx, &d)
	return stopError(ctx, &d)
}

var defaultPolicy Policy

// unobserved reports whether no hook, logger or metrics will see the loop's decisions.
func (p *Policy) unobserved() bool {
	return p.OnDecision == nil && p.OnDecisionContext == nil && p.Logger == nil && p.Metrics == nil
}

// decisionsUnread reports whether nobody needs the loop's decision on a success: no hook,
// logger or metrics sees it and no breaker or budget counts the attempt's result, so a
// success may return without the clock, Decide or a Loop.
func (p *Policy) decisionsUnread() bool {
	return p.Breaker == nil && p.Budget == nil && p.unobserved()
}

// sleep waits for d, or less when ctx ends first; it reports whether it waited it all.
// A zero or negative d creates no timer.
func sleep(ctx context.Context, d time.Duration) bool {
	if d > 0 {
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-timer.C:
		}
	}
	return ctx.Err() == nil
}

// stopError returns nil for a success and otherwise the *Error describing d.
func stopError(ctx context.Context, d *Decision) error {
	if d.Reason == ReasonSuccess {
		return nil
	}
	e := &Error{Reason: d.Reason, Attempts: d.Attempt, Elapsed: d.Elapsed, Status: d.Status, Err: d.Err,
		RetryIn: d.BreakerRetryIn, MayHaveApplied: d.Reason == ReasonUnknownOutcome}
	if d.Reason == ReasonCanceled || d.Reason == ReasonDeadlineExceeded {
		e.Context = ctx.Err()
	}
	return e
}
