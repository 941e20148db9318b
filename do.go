package retry

import (
	"context"
	"errors"
	"time"
)

// Do calls op until it succeeds or p says stop, and returns nil on success or an [*Error]
// saying why it stopped. A nil p means the zero Policy (all defaults).
//
// Each attempt gets a context whose deadline is the earlier of the attempt's own timeout and
// the loop's deadline, so the deadline also cancels work in flight (SPEC R2.2, R2.5). Between
// attempts Do waits on a timer that ctx interrupts at once (SPEC R2.8); a zero wait creates
// no timer. Before waiting it checks that the wait leaves a useful attempt (SPEC R2.3, see
// [Decide]) and after waking it checks the deadline again, since the process may have been
// suspended (SPEC R2.4).
//
// Time is read from the time package: deadlines and waits use Go's monotonic clock, which
// measures elapsed time independently of wall-clock changes (NTP steps, a user setting the
// date). Whether the monotonic clock advances while the machine is suspended depends on the
// operating system (on Linux it does not), so a loop that wakes from suspend re-checks its
// deadline against that clock, not against the wall clock (SPEC R2.6).
//
// Do returns when op has returned and the loop has decided: no goroutine or timer of the
// loop outlives the call, and each attempt's context is canceled when op returns.
func Do(ctx context.Context, p *Policy, op func(ctx context.Context) error) error {
	_, attempt, err := run(ctx, p, func(ctx context.Context) (struct{}, Outcome) {
		return struct{}{}, Outcome{Err: op(ctx)}
	}, nil)
	attempt.end()
	return err
}

// DoValue is [Do] for an operation that returns a value: it returns the value of the last
// attempt, which is the successful one when the error is nil.
func DoValue[T any](ctx context.Context, p *Policy, op func(ctx context.Context) (T, error)) (T, error) {
	v, attempt, err := run(ctx, p, func(ctx context.Context) (T, Outcome) {
		v, err := op(ctx)
		return v, Outcome{Err: err}
	}, nil)
	attempt.end()
	return v, err
}

// DoFallback is [DoValue] with a fallback that turns a final failure into a value (SPEC
// R7.1): when the loop stops for any reason but success, fallback is called with ctx and the
// loop's [*Error], and its results are returned.
func DoFallback[T any](ctx context.Context, p *Policy, op func(ctx context.Context) (T, error),
	fallback func(ctx context.Context, err error) (T, error)) (T, error) {
	v, err := DoValue(ctx, p, op)
	if err != nil {
		return fallback(ctx, err)
	}
	return v, nil
}

// Run is the general form of the loop, for operations that report more than an error, such
// as an HTTP transport (package retryhttp): op returns a value and an [Outcome] with its
// status and any server-requested wait. When the loop retries, it passes the discarded value
// to discard (if not nil), for example to drain and close a response body.
//
// Run returns the last attempt's value, which it does not discard, even when it also returns
// an error (so a response refused by policy still reaches the caller), and release, which
// cancels the last attempt's context. That context stays alive until release is called, so a
// response body can still be read; call release exactly once when done with the value.
// release is never nil.
func Run[T any](ctx context.Context, p *Policy, op func(ctx context.Context) (T, Outcome),
	discard func(T)) (value T, release func(), err error) {
	v, attempt, err := run(ctx, p, op, discard)
	if attempt == nil {
		return v, func() {}, err
	}
	return v, attempt.end, err
}

func run[T any](ctx context.Context, p *Policy, op func(context.Context) (T, Outcome), discard func(T)) (T, *attemptContext, error) {
	if p == nil {
		p = &defaultPolicy
	}
	var value T
	if err := p.Validate(); err != nil {
		return value, nil, err
	}
	start := time.Now()
	var deadline time.Time
	if t := p.timeout(); t != NoLimit {
		deadline = start.Add(t)
	}
	callerDeadline, callerHasDeadline := ctx.Deadline()
	if callerHasDeadline && (deadline.IsZero() || callerDeadline.Before(deadline)) {
		deadline = callerDeadline
	}
	s := State{Start: start, Now: start, Deadline: deadline, Nested: InLoop(ctx)}
	var marked *markedContext // shared by the attempts that need no deadline of their own

	for {
		s.Attempt++
		attemptDeadline := deadline
		if p.AttemptTimeout > 0 {
			if d := s.Now.Add(p.AttemptTimeout); attemptDeadline.IsZero() || d.Before(attemptDeadline) {
				attemptDeadline = d
			}
		}
		var attempt *attemptContext
		var attemptCtx context.Context
		if attemptDeadline.IsZero() || (callerHasDeadline && !callerDeadline.After(attemptDeadline)) {
			if marked == nil {
				marked = &markedContext{ctx}
			}
			attemptCtx = marked
		} else {
			attempt = newAttemptContext(ctx, attemptDeadline)
			attemptCtx = attempt
		}

		var o Outcome
		value, o = op(attemptCtx)
		s.Now = time.Now()
		s.Interrupted = ctx.Err()
		d := Decide(p, s, o)
		p.report(ctx, d)
		if !d.Retry {
			return value, attempt, stopError(d, ctx)
		}
		if discard != nil {
			discard(value) // before end: draining a response body needs its context
		}
		attempt.end()

		if d.Wait > 0 {
			timer := time.NewTimer(d.Wait)
			select {
			case <-ctx.Done():
				timer.Stop()
			case <-timer.C:
			}
		}
		s.Now = time.Now()
		s.PreviousWait = d.Wait
		if err := ctx.Err(); err != nil {
			s.Interrupted = err
			return value, nil, p.stopAfterWait(ctx, d, s, ReasonCanceled)
		}
		if !deadline.IsZero() && !p.leavesAttemptTime(deadline.Sub(s.Now), 0) {
			return value, nil, p.stopAfterWait(ctx, d, s, ReasonDeadlineExceeded)
		}
	}
}

var defaultPolicy Policy

// end cancels the attempt's context; it does nothing on a nil attempt (one that ran with
// the caller's context) or one already ended.
func (c *attemptContext) end() {
	if c != nil {
		c.cancel(context.Canceled)
	}
}

// stopAfterWait records and returns the stop of a loop whose wait was cut short by the
// caller's context or that woke up too close to the deadline (SPEC R2.4, R2.8). The decision
// keeps the last attempt's fields.
func (p *Policy) stopAfterWait(ctx context.Context, retry Decision, s State, reason Reason) error {
	if reason == ReasonCanceled && errors.Is(s.Interrupted, context.DeadlineExceeded) {
		reason = ReasonDeadlineExceeded
	}
	d := retry.stop(reason)
	d.afterWait = true
	d.Elapsed = s.Now.Sub(s.Start)
	if d.HasDeadline {
		d.Remaining = max(0, s.Deadline.Sub(s.Now))
	}
	p.report(ctx, d)
	return stopError(d, ctx)
}

// stopError returns nil for a success and otherwise the *Error describing d.
func stopError(d Decision, ctx context.Context) error {
	if d.Reason == ReasonSuccess {
		return nil
	}
	e := &Error{Reason: d.Reason, Attempts: d.Attempt, Elapsed: d.Elapsed, Status: d.Status, Err: d.Err}
	if d.Reason == ReasonCanceled || d.Reason == ReasonDeadlineExceeded {
		e.Context = ctx.Err()
	}
	return e
}
