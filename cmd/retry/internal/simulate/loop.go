package simulate

import (
	"time"

	"github.com/retrykit/retry"
)

// loop is one retry loop on virtual time. It follows the executor of package retry step for
// step (retry.Run in do.go): ask the breaker before every attempt, waiting once for it when it
// names a time that fits; run the attempt; ask retry.Decide; report the result to the breaker
// and the budget and let the budget veto a retry; wait; re-check the deadline after waking.
// Only the waiting differs: events on the simulator's clock instead of timers.
type loop struct {
	sim     *sim
	p       *retry.Policy
	s       retry.State
	last    retry.Decision
	attempt func(deadline time.Time, done func(retry.Outcome)) // starts one attempt
	finish  func(retry.Decision)                               // receives the final decision
}

// start begins a loop now. parentDeadline is the deadline of the enclosing attempt (the
// zero Time for none); nested says the loop runs inside another loop's attempt (what
// retry.InLoop reports in a real process).
func startLoop(sm *sim, p *retry.Policy, nested bool, parentDeadline time.Time,
	attempt func(deadline time.Time, done func(retry.Outcome)), finish func(retry.Decision)) {
	now := sm.clock()
	l := &loop{sim: sm, p: p, attempt: attempt, finish: finish}
	l.s = retry.State{Start: now, Now: now, Nested: nested, Deadline: loopDeadline(p, now, parentDeadline)}
	l.next()
}

// loopDeadline is the earlier of start + the policy's timeout and the parent's deadline.
func loopDeadline(p *retry.Policy, start, parent time.Time) time.Time {
	var d time.Time
	switch t := p.Timeout; {
	case t == 0:
		d = start.Add(retry.DefaultTimeout)
	case t != retry.NoLimit:
		d = start.Add(t)
	}
	if !parent.IsZero() && (d.IsZero() || parent.Before(d)) {
		d = parent
	}
	return d
}

// next admits and starts the next attempt.
func (l *loop) next() {
	if l.p.Breaker == nil {
		l.run(0)
		return
	}
	token, ok, retryIn := l.p.Breaker.Allow()
	switch {
	case ok:
		l.run(token)
	case retryIn < 0 || !l.fits(retryIn, true):
		l.stopWithout(retry.ReasonCircuitOpen)
	default:
		l.sim.after(retryIn, func() {
			l.s.Now = l.sim.clock()
			if token, ok, _ := l.p.Breaker.Allow(); ok {
				l.run(token)
				return
			}
			l.stopWithout(retry.ReasonCircuitOpen)
		})
	}
}

// fits reports whether waiting w leaves a useful attempt before the deadline and, when
// checkMaxWait, is within the policy's MaxWait (the rules of retry's admit).
func (l *loop) fits(w time.Duration, checkMaxWait bool) bool {
	if checkMaxWait {
		maxWait := l.p.MaxWait
		if maxWait == 0 {
			maxWait = retry.DefaultMaxWait
		}
		if maxWait != retry.NoLimit && w > maxWait {
			return false
		}
	}
	if l.s.Deadline.IsZero() {
		return true
	}
	remaining := l.s.Deadline.Sub(l.s.Now)
	return w < remaining && remaining-w >= l.p.MinAttemptTime
}

// run starts an attempt admitted with token and decides when it ends.
func (l *loop) run(token uint64) {
	l.s.Attempt++
	l.attempt(l.s.Deadline, func(o retry.Outcome) {
		l.s.Now = l.sim.clock()
		d := retry.Decide(l.p, l.s, o)
		r := resultOf(d)
		if l.p.Breaker != nil {
			l.p.Breaker.Done(token, r)
		}
		if l.p.Budget != nil {
			l.p.Budget.Done(l.s.Attempt > 1, r)
			if d.Retry && !l.p.Budget.AllowRetry() {
				d.Retry, d.Reason, d.Wait = false, retry.ReasonRetryBudgetExhausted, 0
			}
		}
		if !d.Retry {
			l.finish(d)
			return
		}
		l.last = d
		l.s.PreviousWait = d.Wait
		l.sim.after(d.Wait, func() {
			l.s.Now = l.sim.clock()
			if !l.s.Deadline.IsZero() && !l.fits(0, false) {
				l.stopWithout(retry.ReasonDeadlineExceeded)
				return
			}
			l.next()
		})
	})
}

// stopWithout ends the loop without a new attempt, keeping the last attempt's fields.
func (l *loop) stopWithout(r retry.Reason) {
	d := l.last
	d.Retry, d.Reason, d.Wait = false, r, 0
	d.Elapsed = l.s.Now.Sub(l.s.Start)
	l.finish(d)
}

// resultOf is what the executor reports to a breaker or a budget (retry's resultOf; a
// simulated caller is never interrupted): a retryable or unknown outcome is a failure,
// anything else a success.
func resultOf(d retry.Decision) retry.Result {
	if d.Class == retry.ClassRetryable || d.Class == retry.ClassUnknown {
		return retry.ResultFailure
	}
	return retry.ResultSuccess
}
