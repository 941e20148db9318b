package retry

import "time"

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
// use.
type Loop struct {
	p         *Policy
	s         State
	last      Decision      // the decision after the latest attempt
	token     uint64        // the breaker's token for the attempt in flight
	woke      bool          // Next follows a wait: check the deadline first
	heldBreak bool          // the last Next waited for the breaker; do not wait again
	suspended time.Duration // machine suspended during the loop's waits (Do measures it)
	final     Decision      // the stop Next decided, for Decision
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
}

// NewLoop starts a loop under p at start. callerDeadline is the caller's own deadline (a
// context deadline; the zero Time for none): the loop's deadline is the earlier of it and
// start + p's Timeout. nested says the loop runs inside an attempt of another loop (see
// [InLoop]). A nil p means the zero Policy. The error is p's [Policy.Validate] error.
func NewLoop(p *Policy, start, callerDeadline time.Time, nested bool) (*Loop, error) {
	l := new(Loop)
	if err := l.start(p, start, callerDeadline, nested); err != nil {
		return nil, err
	}
	return l, nil
}

// Reset starts l over as a new loop, as [NewLoop] would, reusing its memory: a driver that
// runs many loops one after another (the command line's simulator runs millions) allocates
// none. Any state of the loop l was running is dropped. The error is p's [Policy.Validate]
// error, and l must not be used after one until a Reset succeeds.
func (l *Loop) Reset(p *Policy, start, callerDeadline time.Time, nested bool) error {
	*l = Loop{}
	return l.start(p, start, callerDeadline, nested)
}

// start is NewLoop in place, so that Run keeps its Loop on the stack.
func (l *Loop) start(p *Policy, start, callerDeadline time.Time, nested bool) error {
	if p == nil {
		p = &defaultPolicy
	}
	if err := p.Validate(); err != nil {
		return err
	}
	l.p = p
	l.s = State{Start: start, Now: start, Deadline: p.loopDeadline(start, callerDeadline), Nested: nested}
	return nil
}

// startZero starts a zero Loop (one neither NewLoop nor Reset started) at now under the
// zero Policy, which is valid.
func (l *Loop) startZero(now time.Time) {
	if l.p == nil {
		l.start(nil, now, time.Time{}, false)
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

// Next says what to do at now: start the next attempt, wait for the circuit breaker, or stop.
// After a wait it first checks the time left (SPEC R2.4): the deadline less now, less the
// time the machine was suspended during the loop's waits when the driver measures it, as
// [Do] does (see there). Before each attempt it asks the policy's breaker:
// when the breaker refuses but names a time that fits before the deadline and within MaxWait,
// Next asks the driver to wait for it, once; otherwise the loop stops with ReasonCircuitOpen.
func (l *Loop) Next(now time.Time) Step {
	l.startZero(now)
	l.s.Now = now
	if l.woke {
		l.woke = false
		if !l.s.Deadline.IsZero() && !l.p.leavesAttemptTime(l.s.Deadline.Sub(now)-l.suspended, 0) {
			return l.stopWithout(ReasonDeadlineExceeded)
		}
	}
	if l.p.Breaker != nil {
		token, ok, retryIn := l.p.Breaker.Allow()
		if !ok {
			if !l.heldBreak && l.fits(retryIn) {
				l.heldBreak, l.woke = true, true
				return Step{Action: ActionWait, Wait: retryIn}
			}
			step := l.stopWithout(ReasonCircuitOpen)
			l.final.BreakerRetryIn = retryIn
			return step
		}
		l.token, l.heldBreak = token, false
	}
	l.s.Attempt++
	l.s.AttemptStart = now
	return Step{Action: ActionAttempt, Attempt: l.s.Attempt, Deadline: l.p.attemptDeadline(l.s.Deadline, now)}
}

// fits reports whether waiting w for the breaker is worth it: w is known (not negative),
// within MaxWait, and leaves a useful attempt before the deadline.
func (l *Loop) fits(w time.Duration) bool {
	return w >= 0 && l.p.waitsForBreaker(w, l.s.Deadline.Sub(l.s.Now), w, !l.s.Deadline.IsZero())
}

// Done records the outcome of the attempt Next started, ended at now; interrupted is the
// caller's context error if that context has ended, else nil. It tells the policy's breaker
// the result first and asks it when it will admit the next attempt (State.BreakerRetryIn,
// see [AdmissionReporter]), then returns [Decide]'s decision, after telling the budget the
// result (and a budget that is a [ResendCounter] the transport's re-sends) and letting it
// refuse a retry (ReasonRetryBudgetExhausted). When the decision is to retry, wait
// Decision.Wait (never longer: the budget and deadline checks assumed it) and call Next.
func (l *Loop) Done(now time.Time, o Outcome, interrupted error) Decision {
	return *l.done(now, o, interrupted)
}

// done is Done without copying the decision: it returns l's own copy, valid until the
// Loop's next call.
func (l *Loop) done(now time.Time, o Outcome, interrupted error) *Decision {
	l.startZero(now)
	l.s.Now, l.s.Interrupted, l.s.BreakerRetryIn = now, interrupted, 0
	if l.p.Breaker == nil && l.p.Budget == nil {
		l.last = Decide(l.p, l.s, o)
		return l.settle(&l.last)
	}
	// The breaker hears the result first, so that Decide knows when it admits the next
	// attempt (a failure may just have opened it).
	o.Class = l.p.Classify(o) // once: Decide reuses it
	r := ResultOf(o.Class, interrupted != nil)
	if l.p.Breaker != nil {
		l.p.Breaker.Done(l.token, r)
		if r != ResultSuccess {
			l.s.BreakerRetryIn = breakerRetryIn(l.p.Breaker)
		}
	}
	l.last = Decide(l.p, l.s, o)
	d := &l.last
	if l.p.Breaker != nil {
		d.Breaker = breakerState(l.p.Breaker)
	}
	fleetStatus(d, l.p, now)
	if l.p.Budget != nil {
		l.p.Budget.Done(l.s.Attempt > 1, r)
		if counter, ok := l.p.Budget.(ResendCounter); ok && d.TransportResends > 0 {
			counter.Resent(d.TransportResends)
		}
		if d.Retry && !l.p.Budget.AllowRetry() {
			*d = d.stop(ReasonRetryBudgetExhausted)
		}
	}
	return l.settle(d)
}

// settle prepares the next step after decision d: a retry wakes up after d.Wait.
func (l *Loop) settle(d *Decision) *Decision {
	if d.Retry {
		l.woke = true
		l.s.PreviousWait = d.Wait
	}
	return d
}

// Interrupt returns the final decision of a loop whose caller's context ended (err) during a
// wait, at now: ReasonDeadlineExceeded for a context deadline, else ReasonCanceled (SPEC R2.8).
func (l *Loop) Interrupt(now time.Time, err error) Decision {
	l.startZero(now)
	l.s.Now, l.s.Interrupted = now, err
	l.stopWithout(ReasonCanceled)
	return l.final
}

// Decision returns the final decision after Next answered ActionStop: a stop made without a
// new attempt, keeping the fields of the last attempt's decision (the zero Decision's when
// no attempt ran). Step leaves it out so as to stay small to copy.
func (l *Loop) Decision() Decision { return l.final }

// stopWithout ends the loop without a new attempt: a wait cut short by the caller's context,
// a wake-up too close to the deadline, or a breaker's refusal. The decision keeps the fields
// of the last attempt's decision (the zero Decision when no attempt ran).
func (l *Loop) stopWithout(reason Reason) Step {
	if l.s.Interrupted != nil && reason == ReasonCanceled {
		if isDeadline(l.s.Interrupted) {
			reason = ReasonDeadlineExceeded
		}
	}
	l.final = l.last.stop(reason)
	d := &l.final
	d.NoAttempt, d.AttemptDuration, d.BreakerRetryIn = true, 0, 0
	if l.p.Breaker != nil {
		d.Breaker = breakerState(l.p.Breaker)
	}
	fleetStatus(d, l.p, l.s.Now)
	d.Nested = l.s.Nested
	d.Elapsed = l.s.Now.Sub(l.s.Start)
	if d.HasDeadline = !l.s.Deadline.IsZero(); d.HasDeadline {
		d.Remaining = max(0, l.s.Deadline.Sub(l.s.Now))
	}
	return Step{Action: ActionStop}
}

// breakerState names b's state when b reports it.
func breakerState(b CircuitBreaker) string {
	if r, ok := b.(StateReporter); ok {
		return r.StateName()
	}
	return ""
}
