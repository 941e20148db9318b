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
// Which clock (SPEC R2.6): times come from the time package. Deadlines, elapsed times and
// waits use Go's monotonic clock, which wall-clock changes (NTP steps, a user setting the
// date) do not move. On Linux the monotonic clock stops while the machine is suspended, so a
// wait that spans a suspension lasts longer in real time than asked. That is why, after
// every wait, the loop checks the time left against both clocks and takes the smaller: a
// laptop that slept through the deadline stops with ReasonDeadlineExceeded instead of
// starting an attempt nobody is waiting for (SPEC R2.4). The Timeout is a bound on the
// loop's duration enforced through these checks and the attempts' context deadlines; it does
// not interrupt the operation's own code except through that context.
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
// an error (so a response refused by policy still reaches the caller); when the loop stops
// without a new attempt (a wait cut short, a breaker's refusal) the previous value has been
// discarded and Run returns the zero T. It also returns release, which
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
	var value, zero T
	if err := p.Validate(); err != nil {
		return zero, nil, err
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
	var last Decision         // the decision after the previous attempt

	for {
		var token uint64
		if p.Breaker != nil {
			var ok bool
			if token, ok = p.admit(ctx, &s); !ok {
				return zero, nil, p.stopWithout(ctx, last, s, ReasonCircuitOpen)
			}
		}
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
				marked = markContext(ctx)
			}
			attemptCtx = marked
		} else {
			attempt = newAttemptContext(ctx, attemptDeadline)
			attemptCtx = attempt
		}

		var o Outcome
		s.AttemptStart = s.Now // the clock read at the start or after the last wait
		value, o = op(attemptCtx)
		o.Class = p.Classify(o) // once: a user's classifier is called once an attempt
		if o.Class == ClassSuccess && p.unobserved() {
			// Nobody will read this decision's times: skip the clock.
			if p.Breaker != nil {
				p.Breaker.Done(token, ResultSuccess)
			}
			if p.Budget != nil {
				p.Budget.Done(s.Attempt > 1, ResultSuccess)
			}
			return value, attempt, nil
		}
		s.Now = time.Now()
		s.Interrupted = ctx.Err()
		d := Decide(p, s, o)
		if p.Breaker != nil || p.Budget != nil {
			r := resultOf(d, s.Interrupted != nil)
			if p.Breaker != nil {
				p.Breaker.Done(token, r)
			}
			if p.Budget != nil {
				p.Budget.Done(s.Attempt > 1, r)
				if d.Retry && !p.Budget.AllowRetry() {
					d = d.stop(ReasonRetryBudgetExhausted)
				}
			}
		}
		p.report(ctx, d)
		if !d.Retry {
			return value, attempt, stopError(d, ctx)
		}
		if discard != nil {
			discard(value) // before end: draining a response body needs its context
		}
		attempt.end()

		last = d
		s.PreviousWait = d.Wait
		if !sleep(ctx, d.Wait) {
			s.Now, s.Interrupted = time.Now(), ctx.Err()
			return zero, nil, p.stopWithout(ctx, d, s, ReasonCanceled)
		}
		if d.Wait > 0 {
			s.Now = time.Now() // a zero wait does not sleep: the clock read after the attempt stands
		}
		if !deadline.IsZero() && !p.leavesAttemptTime(timeLeft(deadline, s.Now), 0) {
			return zero, nil, p.stopWithout(ctx, d, s, ReasonDeadlineExceeded)
		}
	}
}

// admit asks the policy's breaker to admit the next attempt. When it refuses but names a
// time to come back that fits before the deadline and within MaxWait, admit waits once and
// asks again (SPEC R5). It updates s.Now and, when ctx ends, s.Interrupted.
func (p *Policy) admit(ctx context.Context, s *State) (token uint64, ok bool) {
	token, ok, retryIn := p.Breaker.Allow()
	if ok || retryIn < 0 {
		return token, ok
	}
	if maxWait := p.maxWait(); maxWait != NoLimit && retryIn > maxWait {
		return 0, false
	}
	if !s.Deadline.IsZero() && !p.leavesAttemptTime(s.Deadline.Sub(s.Now), retryIn) {
		return 0, false
	}
	woke := sleep(ctx, retryIn)
	s.Now = time.Now()
	if !woke {
		s.Interrupted = ctx.Err()
		return 0, false
	}
	token, ok, _ = p.Breaker.Allow()
	return token, ok
}

// timeLeft returns the time from now to deadline by the monotonic clock or by the wall
// clock, whichever is smaller: the wall clock also counts time spent suspended.
func timeLeft(deadline, now time.Time) time.Duration {
	return min(deadline.Sub(now), deadline.Round(0).Sub(now.Round(0)))
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

var defaultPolicy Policy

// unobserved reports whether no hook, logger or metrics will see the loop's decisions.
func (p *Policy) unobserved() bool {
	return p.OnDecision == nil && p.Logger == nil && p.Metrics == nil
}

// stopWithout records and returns a stop decided without a new attempt: a wait cut short
// by the caller's context (SPEC R2.8), a wake-up too close to the deadline (SPEC R2.4), or a
// breaker that refused the attempt. The decision keeps the fields of the last attempt's
// decision, last (the zero Decision when no attempt ran).
func (p *Policy) stopWithout(ctx context.Context, last Decision, s State, reason Reason) error {
	if s.Interrupted != nil {
		reason = ReasonCanceled
		if errors.Is(s.Interrupted, context.DeadlineExceeded) {
			reason = ReasonDeadlineExceeded
		}
	}
	d := last.stop(reason)
	d.NoAttempt, d.AttemptDuration = true, 0
	d.Nested = s.Nested
	d.Elapsed = s.Now.Sub(s.Start)
	if d.HasDeadline = !s.Deadline.IsZero(); d.HasDeadline {
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
