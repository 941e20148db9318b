package retry

import (
	"log/slog"
	"time"

	"github.com/retrykit/retry/internal/clock"
	"github.com/retrykit/retry/internal/quota"
)

// Loop is one retry loop as a state machine: it keeps the loop's [State] and applies the
// policy at every step (breaker admission, [Decide], the retry budget, the deadline check
// after a wait), but it reads no clock, sets no timer and starts no goroutine. Its driver
// says what time it is, runs the attempts and does the waiting. [Run] and [Do] drive a Loop
// with the real clock; the command line's herd simulator drives thousands on virtual time,
// so both follow exactly the same rules.
//
// The driver calls [Loop.Next] to learn what to do: start an attempt, wait and call Next
// again, or stop ([Loop.Decision] then says why). After an attempt it calls [Loop.Done] with
// the outcome; a decision to retry means wait Decision.Wait and call Next. If the caller
// gives up during a wait, [Loop.Interrupt] gives the final decision. The zero Loop is a loop
// under the zero Policy, without a caller's deadline, that starts at its first Next (or Done
// or Interrupt): NewLoop(nil, now, time.Time{}, false). A Loop is not safe for concurrent
// use: a driver that hedges (see Step.HedgeAfter) runs attempts concurrently, but calls the
// Loop from one goroutine.
type Loop struct {
	p         *Policy
	s         State
	d         Decision      // the latest decision: the last attempt's, then the final stop
	reported  int           // d's attributes before the breaker's and budget's
	sent      grant         // what the gates granted the attempt in flight
	rate      reservation   // the rate gate's time for the next attempt
	gateWait  time.Duration // how long the next attempt has waited at the rate gate
	suspended time.Duration // machine suspended during the loop's waits (Do measures it)
	sleptAt   clock.Reading // the clocks when the current wait began
	// outer is the number of the outer loop's attempt the operation is (Operation.Outer):
	// the loop makes that one attempt and leaves its retry to the outer loop; 0 for none.
	outer int
	// The caller's context deadline, for the attempts' contexts (run), when
	// callerHasDeadline.
	callerDeadline time.Time
	budget         *quota.Quota // the policy's default budget, once looked up
	// refusedWait is the wait of the retry the budget refused, and gateRetryIn how long the
	// rate gate would have held the attempt it stopped, for Error.RetryAfter.
	refusedWait, gateRetryIn time.Duration
	// The latest attempt that failed by itself, not cut by the deadline or the caller: its
	// number, its error and its status (see Error.LastFailure).
	failedAttempt int
	failedErr     error
	failedStatus  int
	// h is the state of hedging (hedgeloop.go), nil until a round hedges.
	h *hedgeRound

	// The flags, together, so that the Loop stays small (retryhttp keeps one per request).
	woke              bool // Next follows a wait: check the deadline first
	heldBreak         bool // the last Next waited for the breaker; do not wait again
	reserved          bool // the loop holds a place to wait for the breaker (TrialReserver)
	noHedge           bool // the driver runs one attempt at a time: the loop does not hedge
	callerHasDeadline bool
	// private: the driver keeps the loop to itself (Do, DoValue); quiet: moreover nothing
	// reads the time an attempt ended when it succeeded, so the driver need not read it.
	private, quiet bool
}

// Action is what a [Step] asks of the driver.
type Action uint8

const (
	// ActionAttempt: start attempt number Step.Attempt now, bounded by Step.Deadline.
	ActionAttempt Action = iota + 1
	// ActionWait: wait Step.Wait (the breaker will admit a trial call then), then call Next.
	ActionWait
	// ActionStop: the loop is over; [Loop.Decision] says why.
	ActionStop
	// ActionAwait: start nothing; wait for the attempts in flight to end (see
	// [Loop.DoneHedge]), and call Next again after Step.HedgeAfter if it is positive and
	// none has ended by then.
	ActionAwait
)

// Step is what [Loop.Next] asks the driver to do.
type Step struct {
	// Action is what to do.
	Action Action
	// Attempt is the number of the attempt to start (ActionAttempt).
	Attempt int
	// Deadline bounds the attempt (ActionAttempt): the earlier of the attempt's start plus
	// Policy.AttemptTimeout and the loop's deadline; the zero Time means none.
	Deadline time.Time
	// Wait is how long to wait before calling Next again (ActionWait).
	Wait time.Duration
	// Hedge is 0 for an attempt, n for the n-th hedge of attempt Step.Attempt: a copy of
	// it to run beside it (ActionAttempt). Report its end with [Loop.DoneHedge].
	Hedge int
	// HedgeAfter, when positive, asks a driver that can run attempts concurrently to call
	// Next again if no attempt in flight has ended HedgeAfter from now: the loop may then
	// send a hedge (see Policy.Hedge). A driver that runs one attempt at a time ignores it,
	// and the loop never hedges.
	HedgeAfter time.Duration
}

// NewLoop starts a loop under p at start. callerDeadline is the caller's own deadline (a
// context deadline; the zero Time for none): the loop's deadline is the earlier of it and
// start + p's Timeout. nested says the loop runs inside an attempt of another loop (see
// [InLoop]). labels name the operation in every decision, those made before any attempt
// included (see Operation.Attrs). A nil p means the zero Policy. The error is p's
// [Policy.Validate] error.
func NewLoop(p *Policy, start, callerDeadline time.Time, nested bool, labels ...slog.Attr) (*Loop, error) {
	l := new(Loop)
	if err := l.start(p, start, callerDeadline, nested, labels); err != nil {
		return nil, err
	}
	return l, nil
}

// Reset starts l over as a new loop, as [NewLoop] would, reusing its memory: a driver that
// runs many loops one after another (the command line's simulator runs millions) allocates
// none. Any state of the loop l was running is dropped. The error is p's [Policy.Validate]
// error, and l must not be used after one until a Reset succeeds.
func (l *Loop) Reset(p *Policy, start, callerDeadline time.Time, nested bool, labels ...slog.Attr) error {
	h := l.h
	*l = Loop{}
	if h != nil { // keep its memory, not its state
		*h = hedgeRound{lost: h.lost}
		l.h = h
	}
	return l.start(p, start, callerDeadline, nested, labels)
}

// start is NewLoop in place, so that Run keeps its Loop on the stack.
func (l *Loop) start(p *Policy, start, callerDeadline time.Time, nested bool, labels []slog.Attr) error {
	if p == nil {
		p = &defaultPolicy
	}
	if err := p.Validate(); err != nil {
		return err
	}
	l.p = p
	l.s = State{Start: start, Now: start, Deadline: p.loopDeadline(start, callerDeadline), Nested: nested}
	l.d.AddAttrs(labels...)
	l.d.labels = l.d.NumAttrs()
	l.reported = l.d.labels
	return nil
}

// SetOuterAttempt makes l, just started by [NewLoop] or [Loop.Reset], attempt number n of a
// retry loop outside it, as Operation.OuterAttempt does for [Run]: Next numbers its attempt
// n, and a decision to retry after it is the outer loop's to make, after the decision's
// Wait, which keeps only the wait the server or the rate gate asks for (0 when only a
// backoff applies), the rate gate's time given back. The driver then makes no more attempts
// with l. n of 0 or less means no outer loop. Call it before the first Next.
func (l *Loop) SetOuterAttempt(n int) {
	if n > 0 {
		l.outer, l.s.Attempt = n, n-1 // Next numbers the attempt
	}
}

// startZero starts a zero Loop (one neither NewLoop nor Reset started) at now under the
// zero Policy, which is valid.
func (l *Loop) startZero(now time.Time) {
	if l.p == nil {
		l.start(nil, now, time.Time{}, false, nil)
	}
}

// loopDeadline is the deadline of a loop under p started at start: the earlier of start + p's
// Timeout and callerDeadline; the zero Time for none.
func (p *Policy) loopDeadline(start, callerDeadline time.Time) time.Time {
	var deadline time.Time
	if t := p.timeout(); t != NoLimit {
		deadline = start.Add(t)
	}
	if !callerDeadline.IsZero() && (deadline.IsZero() || callerDeadline.Before(deadline)) {
		deadline = callerDeadline
	}
	return deadline
}

// attemptDeadline is the deadline of an attempt under p started at now in a loop whose
// deadline is loopDeadline: the earlier of it and now + p's AttemptTimeout.
func (p *Policy) attemptDeadline(loopDeadline, now time.Time) time.Time {
	if t := p.AttemptTimeout; t > 0 {
		if d := now.Add(t); loopDeadline.IsZero() || d.Before(loopDeadline) {
			return d
		}
	}
	return loopDeadline
}

// State returns the loop's state as [Decide] last saw it.
func (l *Loop) State() State { return l.s }

// Next says what to do at now: start the next attempt, wait for the circuit breaker, or stop;
// while attempts are in flight (a driver that hedges, see Step.HedgeAfter), start a hedge or
// await their answers.
// After a wait it first checks the time left: the deadline less now, less the
// time the machine was suspended during the loop's waits when the driver measures it, as
// [Do] does (see there). Before each attempt it asks the policy's rate gate for a time to
// send, and asks the driver to wait for it when it fits before the deadline and within
// MaxWait (else the loop stops with ReasonRateLimitExceedsDeadline or
// ReasonRetryAfterExceedsMaxWait); then it asks the breaker: when the breaker refuses, the
// loop stops with ReasonCircuitOpen, unless the breaker names a time within
// Policy.BreakerWait that leaves the trial call time before the deadline and, when it is a
// [TrialReserver], gives the loop a place to wait: then Next asks the driver to wait for
// it, once.
func (l *Loop) Next(now time.Time) Step {
	l.startZero(now)
	l.s.Now = now
	if l.h != nil && l.h.running > 0 {
		return l.nextHedge(now)
	}
	if l.woke {
		l.woke = false
		if !l.s.Deadline.IsZero() && !l.p.leavesAttemptTime(l.s.Deadline.Sub(now)-l.suspended, 0) {
			return l.stopWithout(ReasonDeadlineExceeded)
		}
	}
	return l.admit(now)
}

// fits reports whether waiting w for the breaker is worth it: w is known (not negative),
// within BreakerWait, and leaves a useful attempt before the deadline.
func (l *Loop) fits(w time.Duration) bool {
	return w >= 0 && l.p.waitsForBreaker(w, l.s.Deadline.Sub(l.s.Now), w, !l.s.Deadline.IsZero())
}

// Done records the outcome of the attempt Next started, ended at now; interrupted is the
// caller's context error if that context has ended, else nil. It tells the policy's breaker
// the result first and asks it when it will admit the next attempt (State.BreakerRetryIn,
// see [AdmissionReporter]), then returns [Decide]'s decision, after asking a breaker that
// is a [TrialReserver] for a place to wait when the retry must wait for it beyond its
// backoff (ReasonCircuitOpen when none is left), telling the retry budget the result (and a
// budget that is a [ResendCounter] the transport's re-sends) and letting it refuse the retry
// (ReasonRetryBudgetExhausted); the budget hears nothing of an attempt that never reached
// the server (Outcome.NeverReached), nor of the retry after it. The decision carries the
// loop's labels, then o.Attrs, then the fields of a breaker and a budget that are
// [Reporter]s. When the decision is to retry, wait Decision.Wait (never longer: the budget
// and deadline checks assumed it) and call Next. For the attempts of a round that hedges,
// use [Loop.DoneHedge].
func (l *Loop) Done(now time.Time, o Outcome, interrupted error) Decision {
	return *l.done(now, o, interrupted)
}

// done is Done without copying the decision: it returns l's own copy, valid until the
// Loop's next call.
func (l *Loop) done(now time.Time, o Outcome, interrupted error) *Decision {
	return l.doneAt(0, now, o, interrupted)
}

// conclude decides after the attempt that ends the round (see doneAt); hedge says it was a
// hedge, which the budget counts as a retry.
func (l *Loop) conclude(now time.Time, o Outcome, interrupted error, hedge bool) *Decision {
	l.startZero(now)
	l.s.Now, l.s.Interrupted, l.s.BreakerRetryIn = now, interrupted, 0
	o.Class = l.p.classify(&o) // once: a user's classifier is called once an attempt
	if !o.HasRetryAfter && o.Err != nil {
		o.RetryAfter, o.RetryAfterFrom, o.HasRetryAfter = serverWait(o.Err) // once, for the gates and Decide
	}
	r := resultOf(&o, o.Class, interrupted != nil)
	// The gates hear the result first, so that Decide knows when the breaker admits the
	// next attempt (a failure may just have opened it) and the rate gate has slowed down.
	l.tellGates(l.sent, now, r, &o)
	l.sent = grant{}
	if l.quiet && o.Class == ClassSuccess && interrupted == nil {
		return l.succeeded(r, now, hedge, &o)
	}
	if l.p.Breaker != nil && r != ResultSuccess {
		l.s.BreakerRetryIn = breakerRetryIn(l.p.Breaker)
	}
	d := &l.d
	decide(d, l.p, &l.s, &o) // keeps the labels start put in d
	d.GateWait, l.gateWait = l.gateWait, 0
	l.noteFailure(o, interrupted)
	l.reported = d.NumAttrs()
	l.report(now)
	if in := l.s.BreakerRetryIn; d.Retry && in > d.Wait && l.outer == 0 {
		// The retry waits for the breaker beyond its backoff: a place to wait, or stop.
		if l.reserved = reserveTrial(l.p.Breaker); !l.reserved {
			d.stop(ReasonCircuitOpen)
			d.BreakerRetryIn = in
		}
	}
	l.admitRetry(d, r, now, hedge, o.NeverReached)
	if d.Retry {
		l.woke = true
		l.s.PreviousWait = d.Wait
	}
	return d
}

// succeeded is conclude's end for a success in a loop that nobody sees (Loop.quiet: Do's,
// DoValue's, with no observer): the decision is to stop with ReasonSuccess, and its record,
// which nobody reads, is left as it is but for its attempt, class and reason; the budget is
// told as usual.
func (l *Loop) succeeded(r Result, now time.Time, hedge bool, o *Outcome) *Decision {
	d := &l.d
	d.Attempt, d.Class, d.Status, d.Err = l.s.Attempt, ClassSuccess, o.Status, nil
	d.stop(ReasonSuccess)
	if !o.NeverReached && !isNoBudget(l.p.Budget) {
		l.tellBudget(d, r, now, hedge)
	}
	return d
}

// noteFailure keeps the attempt's failure for Error.LastFailure, unless the deadline or the
// caller ended the attempt.
func (l *Loop) noteFailure(o Outcome, interrupted error) {
	cut := interrupted != nil || (!l.s.Deadline.IsZero() && !l.s.Now.Before(l.s.Deadline))
	if cut || o.Class == ClassSuccess {
		return
	}
	l.failedAttempt, l.failedErr, l.failedStatus = l.s.Attempt, o.Err, o.Status
}

// report adds the fields of the policy's breaker and budget, when they are [Reporter]s, to
// the decision.
func (l *Loop) report(now time.Time) {
	if l.p.Breaker != nil {
		reportTo(&l.d, l.p.Breaker, now)
	}
	if b := l.p.Budget; b != nil && !isNoBudget(b) { // NoBudget reports nothing: no type lookup
		reportTo(&l.d, b, now)
	}
}

// Interrupt returns the final decision of a loop whose caller's context ended (err) during a
// wait, at now: ReasonDeadlineExceeded for a context deadline, else ReasonCanceled.
func (l *Loop) Interrupt(now time.Time, err error) Decision {
	l.startZero(now)
	l.s.Now, l.s.Interrupted = now, err
	l.stopWithout(ReasonCanceled)
	return l.d
}

// Decision returns the latest decision: after Next answered ActionStop, the final one, a
// stop made without a new attempt that keeps the fields of the last attempt's decision (the
// zero Decision's, with the loop's labels, when no attempt ran). Step leaves it out so as
// to stay small to copy.
func (l *Loop) Decision() Decision { return l.d }

// stopWithout ends the loop without a new attempt: a wait cut short by the caller's context,
// a wake-up too close to the deadline, a breaker's refusal or a rate gate's time that does
// not fit. It gives back the rate gate's reservation. The decision keeps the fields of the
// last attempt's decision, the breaker's and budget's fields read anew.
func (l *Loop) stopWithout(reason Reason) Step {
	if l.s.Interrupted != nil && reason == ReasonCanceled {
		if isDeadline(l.s.Interrupted) {
			reason = ReasonDeadlineExceeded
		}
	}
	l.cancelReservation()
	d := &l.d
	d.stop(reason)
	d.NoAttempt, d.AttemptDuration, d.BreakerRetryIn, d.GateWait = true, 0, 0, 0
	d.Winner, d.inHedgedRound = false, false // no attempt's answer decided this stop
	d.truncateAttrs(l.reported)
	l.report(l.s.Now)
	d.Nested = l.s.Nested
	d.Elapsed = l.s.Now.Sub(l.s.Start)
	if d.HasDeadline = !l.s.Deadline.IsZero(); d.HasDeadline {
		d.Remaining = max(0, l.s.Deadline.Sub(l.s.Now))
	}
	return Step{Action: ActionStop}
}

// Err returns nil after a success and otherwise the [*Error] describing the loop's final
// decision (after Next answered ActionStop or Done decided to stop). Its Cause is nil: a
// driver whose caller's context ended the loop sets it.
func (l *Loop) Err() error {
	d := &l.d
	if d.Reason == ReasonSuccess || d.Retry {
		return nil
	}
	e := &Error{Reason: d.Reason, Attempts: d.Attempt, Elapsed: d.Elapsed, Status: d.Status, Err: d.Err,
		MayHaveApplied: d.Reason == ReasonUnknownOutcome}
	if l.failedAttempt != 0 && l.failedAttempt != d.Attempt {
		e.LastFailure = l.failedErr
		if e.LastFailure == nil {
			e.LastFailure = &StatusError{Status: l.failedStatus}
		}
	}
	if d.HasRetryAfter {
		e.retryAfter, e.retryAfterFrom, e.hasRetryAfter = d.RetryAfter, d.RetryAfterFrom, true
	}
	if d.Reason == ReasonRetryBudgetExhausted && !e.hasRetryAfter && l.refusedWait > 0 {
		e.retryAfter, e.retryAfterFrom, e.hasRetryAfter = l.refusedWait, fromBackoff, true
	}
	if in := l.gateRetryIn; in > 0 && (!e.hasRetryAfter || in > e.retryAfter) {
		e.retryAfter, e.retryAfterFrom, e.hasRetryAfter = in, fromRateGate, true
	}
	switch in := d.BreakerRetryIn; {
	case d.Reason != ReasonCircuitOpen:
	case in < 0:
		e.trialsInFlight = true
	case in > 0 && (!e.hasRetryAfter || in >= e.retryAfter):
		e.retryAfter, e.retryAfterFrom, e.hasRetryAfter = in, fromBreaker, true
	}
	return e
}
