package retry

import (
	"context"
	"errors"
	"log/slog"
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
// the loop's deadline, so the deadline also cancels work in flight. Attempts that follow
// each other with no wait share one context, which ends when Do returns or when the loop
// starts a wait (the attempt after the wait gets a new one); an attempt with an
// AttemptTimeout gets a context of its own, which ends when it returns. Between attempts Do
// waits on a timer that ctx interrupts at once; a zero wait creates no timer. Before waiting it checks that the wait leaves a useful attempt (see
// [Decide]), and after waking it checks the deadline again, counting the time the machine
// was suspended (see the package doc's "Clocks"). Do returns when op has returned and the
// loop has decided: no goroutine or timer of the loop outlives the call.
func Do(ctx context.Context, p *Policy, op func(ctx context.Context) error) error {
	if op == nil {
		return ErrNilOperation
	}
	var l Loop
	l.private = true
	_, final, err := run(ctx, &l, p, func(ctx context.Context) (struct{}, Outcome) {
		return struct{}{}, Outcome{Err: op(ctx)}
	}, nil, nil, 0, nil)
	final.End()
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
	var l Loop
	l.private = true
	v, final, err := run(ctx, &l, p, func(ctx context.Context) (T, Outcome) {
		v, err := op(ctx)
		return v, Outcome{Err: err}
	}, nil, nil, 0, nil)
	final.End()
	return v, err
}

// DoFallback is [DoValue] with a fallback that turns a final failure into a value: when the
// loop stops for any reason but success, fallback is called with ctx and the loop's
// [*Error], and its results are returned. An invalid policy or a nil op or fallback is
// returned as an error without calling fallback.
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

// Operation is what [Run] and [RunConcurrent] run: the attempt, what to do with a value the
// loop drops, and the fields that name the operation in its decision records.
type Operation[T any] struct {
	// Attempt runs one attempt with the attempt's context and reports its value and
	// [Outcome]: its error, status and any server-requested wait. It is required.
	Attempt func(ctx context.Context) (T, Outcome)
	// Discard, when set, releases the value of an attempt the loop retries, before the
	// wait, and of an attempt whose answer a hedged round did not use: package retryhttp
	// drains and closes a response body there.
	Discard func(T)
	// Attrs name the operation in every decision record, right after attempt, the stops
	// made before any attempt included (a breaker's refusal, a caller that gave up first):
	// package retryhttp gives method and url. They are copied into each decision; the
	// slice must not change while the loop runs.
	Attrs []slog.Attr
	// OuterAttempt, when positive, says that the operation is attempt number OuterAttempt
	// of a retry loop outside this package that retries it by itself, such as an SDK's own
	// (package retryhttp sets it for a request that carries X-Stainless-Retry-Count). The
	// loop then makes that one attempt, numbered OuterAttempt, and decides after it as after
	// that attempt of its own: the policy's attempt limit, backoff, breaker, budget and rate
	// gate apply. A decision to stop ends the run as usual; a decision to retry leaves the
	// retry to the outer loop: the run returns the attempt's value with ErrOuterRetry, its
	// retry budget charged already (the outer loop's next attempt is not asked again), and
	// the decision's Wait is the wait the server or the rate gate asks for before it, 0
	// when only a backoff applies, the outer loop having its own (read it with RunIn's
	// Loop.Decision). A breaker that refuses the attempt but admits a trial call within
	// Policy.BreakerWait makes the loop leave the outer loop a retry after that time, without
	// an attempt (the zero T, ErrOuterRetry). Zero means no outer loop.
	OuterAttempt int
}

// ErrOuterRetry is returned with the attempt's value by a loop run with
// Operation.OuterAttempt that decided to retry: the retry is the outer loop's to make,
// after the decision's Wait (see Operation.OuterAttempt). It is no failure of the loop's
// own.
var ErrOuterRetry = errors.New("retry: the retry is left to the outer loop")

// Run is the general form of the loop, for operations that report more than an error, such
// as an HTTP transport (package retryhttp).
//
// Run returns the last attempt's value, which it does not discard, even when it also returns
// an error (so a response refused by policy still reaches the caller); when the loop stops
// without a new attempt (a wait cut short, a breaker's refusal) the previous value has been
// discarded and Run returns the zero T. It also returns final, whose End method ends the last
// attempt's context. That context stays alive until then, so a response body can still be
// read; call final.End once done with the value. The errors are Do's.
func Run[T any](ctx context.Context, p *Policy, op Operation[T]) (value T, final Final, err error) {
	var l Loop
	return run(ctx, &l, p, op.Attempt, op.Discard, op.Attrs, op.OuterAttempt, nil)
}

// RunIn is [Run] with the loop's state in l, which it starts anew (as [Loop.Reset] does): a
// caller that holds memory of its own for the operation (package retryhttp's state of a
// request) keeps l there, so that a loop waiting between attempts holds a frame of a few
// hundred bytes on its goroutine's stack instead of l's. l must not be used by anything else
// until RunIn returns.
func RunIn[T any](ctx context.Context, l *Loop, p *Policy, op Operation[T]) (value T, final Final, err error) {
	return run(ctx, l, p, op.Attempt, op.Discard, op.Attrs, op.OuterAttempt, nil)
}

// Final is the last attempt of a [Run]. It is a small value; the zero Final is valid.
type Final struct {
	cancel context.CancelFunc // nil when the attempt ran with no deadline of the loop's own
}

// End ends the last attempt's context. It is idempotent and safe for concurrent use; on the
// zero Final it does nothing.
func (f Final) End() {
	if f.cancel != nil {
		f.cancel()
	}
}

// run is Run in l, with the operation's parts apart, so that escape analysis, which follows a
// struct as a whole, sees that the attempt function does not outlive the call. hedged, for
// RunConcurrent alone, runs the rounds that hedge (hedgerun.go); nil, the loop does not
// hedge, and attempt stays on the caller's stack.
func run[T any](ctx context.Context, l *Loop, p *Policy, attempt func(context.Context) (T, Outcome), discard func(T),
	labels []slog.Attr, outerAttempt int, hedged *rounds[T]) (T, Final, error) {
	var zero T
	if attempt == nil {
		return zero, Final{}, ErrNilOperation
	}
	if p == nil {
		p = &defaultPolicy
	}
	if err := l.begin(ctx, p, labels, outerAttempt, hedged == nil); err != nil {
		return zero, Final{}, err
	}
	defer l.unwind()
	if ctx.Err() != nil { // the caller gave up before the first attempt
		return zero, Final{}, l.interrupted(ctx)
	}
	var scope attemptScope // the attempts' context, made for the first attempt
	now := l.s.Now
	for {
		step := l.Next(now)
		switch step.Action {
		case ActionStop:
			p.report(ctx, &l.d)
			scope.end()
			if l.d.Retry { // a retry left to the outer loop before any attempt (Loop.leaveToOuter)
				return zero, Final{}, ErrOuterRetry
			}
			return zero, Final{}, l.stopError(ctx)
		case ActionWait:
			scope.release()
			if !l.sleep(ctx, step.Wait) {
				return zero, Final{}, l.interrupted(ctx)
			}
			now = time.Now()
			continue
		}
		if scope.ctx == nil {
			scope.open(ctx, l)
		}
		var value T
		var d *Decision
		var cancel context.CancelFunc
		if hedged != nil && step.HedgeAfter > 0 {
			value, d, cancel = hedged.round(ctx, scope.ctx, l, step, l.ownDeadline(step))
		} else {
			value, d, cancel = runAttempt(ctx, scope.ctx, l, attempt, &step)
		}
		if !d.Retry || l.outer > 0 {
			err := ErrOuterRetry
			if !d.Retry {
				err = l.stopError(ctx)
			}
			return value, scope.final(cancel), err
		}
		if discard != nil {
			discard(value) // before cancel: draining a response body needs its context
		}
		if cancel != nil {
			cancel()
		}
		if d.Wait > 0 {
			scope.release()
		}
		if !l.sleep(ctx, d.Wait) {
			return zero, Final{}, l.interrupted(ctx)
		}
		now = time.Now()
	}
}

// begin starts l anew under p for a driver whose caller's context is ctx (see run); it
// returns p's Validate error. A function of its own, so that what it needs stays out of
// run's frame, which a loop keeps on its stack while it waits.
//
//go:noinline
func (l *Loop) begin(ctx context.Context, p *Policy, labels []slog.Attr, outerAttempt int, noHedge bool) error {
	callerDeadline, callerHasDeadline := ctx.Deadline()
	private := l.private
	var err error
	if l.p == nil && l.h == nil { // a zero Loop (Do's, DoValue's): nothing to clear
		l.private = false
		err = l.start(p, time.Now(), callerDeadline, InLoop(ctx), labels)
	} else {
		err = l.Reset(p, time.Now(), callerDeadline, InLoop(ctx), labels...)
	}
	if err != nil {
		return err
	}
	l.callerDeadline, l.callerHasDeadline = callerDeadline, callerHasDeadline
	// A loop that nobody sees (Do's, DoValue's) and whose policy has nothing that reads the
	// time of an attempt's end needs no clock after a success: its decision is not recorded.
	l.quiet = private && p.OnDecision == nil && p.Classifier == nil && p.RateGate == nil && p.Hedge == nil &&
		p.Budget != nil
	l.SetOuterAttempt(outerAttempt)
	l.noHedge = noHedge
	return nil
}

// ownDeadline is the deadline of the context of its own that the attempt step starts gets:
// AttemptTimeout's, when it comes before the loop's and the caller's; else the zero Time,
// and the attempt runs in the loop's context.
func (l *Loop) ownDeadline(step Step) time.Time {
	if step.Deadline.IsZero() || !l.s.Deadline.IsZero() && !step.Deadline.Before(l.s.Deadline) {
		return time.Time{}
	}
	return attemptOwnDeadline(step.Deadline, l.callerDeadline, l.callerHasDeadline)
}

// attemptScope is the context every attempt of a loop derives from: the caller's, marked as
// a loop's (see InLoop), with the loop's deadline when the loop has one of its own, earlier
// than the caller's. Attempts that follow each other with no wait share one, so that such a
// loop pays for one deadline timer; a loop that waits releases it first, and holds no
// context, timer or registration with the caller's context while it waits (the next
// attempt makes its own, at a cost small beside any wait). It ends when the loop does, or
// when the caller is done with the last attempt's value (Final.End).
type attemptScope struct {
	ctx    context.Context
	cancel context.CancelFunc // nil without a deadline of the loop's own
}

// open makes the scope of l's attempts from the caller's context ctx: marked as a loop's,
// with the loop's deadline when the loop has one of its own.
//
//go:noinline
func (s *attemptScope) open(ctx context.Context, l *Loop) {
	s.ctx, s.cancel = attemptContext(markContext(ctx), attemptOwnDeadline(l.s.Deadline, l.callerDeadline, l.callerHasDeadline))
}

// end ends the scope's context, if it has one of its own.
func (s *attemptScope) end() {
	if s.cancel != nil {
		s.cancel()
	}
}

// release ends the scope's context and forgets it: the next attempt opens a new one.
func (s *attemptScope) release() {
	s.end()
	*s = attemptScope{}
}

// final is the Final of the last attempt, whose own context's cancel is attempt (nil when it
// ran in the scope's context): ending the scope ends the attempt's context too.
func (s *attemptScope) final(attempt context.CancelFunc) Final {
	if s.cancel != nil {
		return Final{s.cancel}
	}
	return Final{attempt}
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// unwind gives back what the gates granted the loop, when run's stack unwinds with a loop
// that still holds something: its operation, its classifier or an observer panicked.
func (l *Loop) unwind() {
	if l.sent.live || l.rate.held || l.h != nil && l.h.running > 0 {
		l.release(time.Now(), -1)
	}
}

// attemptOwnDeadline is the deadline of an attempt's own context, given the step's: none
// (the zero Time) when there is none, or when the caller's context ends first.
func attemptOwnDeadline(step, caller time.Time, callerHas bool) time.Time {
	if step.IsZero() || (callerHas && !caller.After(step)) {
		return time.Time{}
	}
	return step
}

// runAttempt runs the attempt step starts in the loop's context scope, or in a context of
// its own for an AttemptTimeout (see Loop.ownDeadline), and returns its value, l's decision
// (reported) and the cancel of the attempt's own context (nil when there is none). It is a
// function of its own so that what one attempt needs stays out of the frame that waits
// between attempts; and its own frame, which is on the stack all through the attempt, holds
// little more than the attempt's outcome: the rest is done in functions of their own,
// before and after the attempt, so that the deepest point of an attempt's stack (net/http
// at work under it) stays low (bench/, "A waiting loop").
func runAttempt[T any](ctx, scope context.Context, l *Loop, attempt func(context.Context) (T, Outcome),
	step *Step) (T, *Decision, context.CancelFunc) {
	attemptCtx, cancel := scope, context.CancelFunc(nil)
	if !step.Deadline.IsZero() { // else no deadline at all: the scope's context
		attemptCtx, cancel = l.attemptContext(scope, step)
	}
	value, o := attempt(attemptCtx)
	return value, l.afterAttempt(ctx, &o), cancel
}

// attemptContext returns scope, or, when deadline is not zero, a context of the attempt's own
// derived from it with that deadline, and its cancel.
//
//go:noinline
func attemptContext(scope context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	if deadline.IsZero() {
		return scope, nil
	}
	return context.WithDeadline(scope, deadline)
}

// attemptContext is the context of the attempt step starts, in scope (see ownDeadline),
// and its cancel, nil when it has none of its own.
//
//go:noinline
func (l *Loop) attemptContext(scope context.Context, step *Step) (context.Context, context.CancelFunc) {
	return attemptContext(scope, l.ownDeadline(*step))
}

// afterAttempt decides after the attempt that ended with o, at its end (Outcome.Ended, or the
// clock's time; for a success nothing records or counts by time, the attempt's start, which
// reads no clock), and reports the decision with the caller's context ctx.
//
//go:noinline
func (l *Loop) afterAttempt(ctx context.Context, o *Outcome) *Decision {
	now := o.Ended
	switch {
	case !now.IsZero():
		now = later(now, l.s.AttemptStart) // never before the attempt began
	case l.quiet && o.Err == nil && o.Status == 0 && o.Class == ClassUnspecified && !o.Throttled:
		now = l.s.AttemptStart
	default:
		now = time.Now()
	}
	d := l.done(now, *o, ctx.Err())
	l.p.report(ctx, d)
	return d
}

// interrupted records and returns the stop of a loop whose caller's context ended before an
// attempt.
func (l *Loop) interrupted(ctx context.Context) error {
	l.Interrupt(time.Now(), ctx.Err())
	l.p.report(ctx, &l.d)
	return l.stopError(ctx)
}

// stopError is l.Err with the caller's cause, when ctx ended the loop.
func (l *Loop) stopError(ctx context.Context) error {
	err := l.Err()
	if e, ok := err.(*Error); ok && ctx.Err() != nil && (e.Reason == ReasonCanceled || e.Reason.isDeadline()) {
		e.Cause = context.Cause(ctx)
	}
	return err
}

var defaultPolicy Policy
