package retry

import "time"

// This file is the loop's one admission path, and the only place that asks its gates: before
// every attempt (admit), every retry (admitRetry) and every hedge (admitHedge) the loop asks
// the rate gate, the circuit breaker and the retry budget (and for a hedge the Hedger's
// budget), each of which admits, asks for a wait or refuses with a reason and a time to come
// back; the loop weighs the waits against the deadline and MaxWait here (gateStop; the
// breaker's, against BreakerWait: Loop.fits and Decide), tells every gate each attempt's
// result (tellGates), and gives back what a gate granted when a later one refuses or the
// loop unwinds (cancelGrant, cancelReservation, release). A new gate is a field of Policy,
// an interface in gates.go, and its lines here.

// grant is what the gates granted an attempt in flight: the breaker's token and the rate
// gate's, to hand back with the attempt's result.
type grant struct {
	breaker, rate uint64
	live          bool // admitted, and its result not yet told
}

// reservation is the rate gate's time for the loop's next attempt. A reservation with token
// 0 holds nothing: after its time the loop asks the gate again (see RateGate.Reserve).
type reservation struct {
	at    time.Time
	token uint64
	held  bool
}

// reserve asks the rate gate g, at now, for a time at notBefore or later, and keeps it.
func (l *Loop) reserve(g RateGate, now, notBefore time.Time) {
	at, token := g.Reserve(now, notBefore)
	l.rate = reservation{at: at, token: token, held: true}
}

// reserved reports whether the loop holds a reservation to send at: one with a token; a time
// with token 0, once it has come, is one to ask again at.
func (r *reservation) reserved() bool { return r.held && r.token != 0 }

// fromRateGate is Error.RetryAfterFrom for the time the rate gate would have let an
// attempt go.
const fromRateGate = "rate-gate"

// admit is Next's way past the gates to an attempt, at now. The rate gate gives the attempt
// a time to send: the loop waits for it when that fits (gateStop), and stops otherwise.
// Then the circuit breaker admits the attempt, or refuses it: the loop stops, unless
// Policy.BreakerWait lets it wait for a trial call, once (under an outer loop, it leaves the
// outer loop a retry for then: leaveToOuter); either way the rate gate's time is given
// back.
func (l *Loop) admit(now time.Time) Step {
	if g := l.p.RateGate; g != nil {
		if !l.rate.reserved() {
			l.reserve(g, now, now)
		}
		if wait := l.rate.at.Sub(now); wait > 0 {
			if reason := l.gateStop(wait, l.s.Deadline.Sub(now)-l.suspended); reason != "" {
				return l.refuseRate(reason, wait)
			}
			l.woke = true
			l.gateWait += wait
			return Step{Action: ActionWait, Wait: wait}
		}
	}
	var sent grant
	if b := l.p.Breaker; b != nil {
		token, ok, retryIn := b.Allow()
		if !ok {
			l.cancelReservation() // not sent at its time: another loop may use it
			if l.outer > 0 && (l.fits(retryIn) || retryIn < 0 && l.p.BreakerWait != 0) {
				return l.leaveToOuter(retryIn)
			}
			if !l.heldBreak && l.fits(retryIn) && (l.reserved || reserveTrial(b)) {
				l.heldBreak, l.woke, l.reserved = true, true, false
				return Step{Action: ActionWait, Wait: retryIn}
			}
			step := l.stopWithout(ReasonCircuitOpen)
			l.d.BreakerRetryIn = retryIn
			return step
		}
		sent.breaker, l.heldBreak, l.reserved = token, false, false
	}
	sent.rate, sent.live = l.rate.token, true
	l.sent, l.rate = sent, reservation{}
	l.s.Attempt++
	l.s.AttemptStart = now
	return Step{Action: ActionAttempt, Attempt: l.s.Attempt, Deadline: l.p.attemptDeadline(l.s.Deadline, now),
		HedgeAfter: l.startRound(now)}
}

// leaveToOuter ends a loop under an outer loop (Operation.OuterAttempt) whose breaker refused
// its attempt but admits a trial call retryIn from now, within Policy.BreakerWait: rather
// than wait for it, the loop leaves the outer loop a retry after that time, spread as a
// server's wait is (so that the outer loops told the same time do not all come back to
// one trial call at once). Its decision is a retry without an attempt, whose server's wait
// is the breaker's ("circuit-breaker"). A breaker that cannot say (HALF_OPEN, its trial calls
// in flight, a negative retryIn) leaves the outer loop a retry after its own backoff, by
// which the trial may have decided: the wait is 0 then.
func (l *Loop) leaveToOuter(retryIn time.Duration) Step {
	l.stopWithout(ReasonCircuitOpen) // the fields of a decision made without an attempt
	d := &l.d
	d.Retry, d.Reason = true, ReasonRetryableError
	if retryIn >= 0 {
		wait := retryIn + l.p.spread(retryIn, l.p.random())
		if !l.fits(wait) {
			wait = retryIn
		}
		d.Reason, d.Wait = ReasonRetryAfter, wait
		d.RetryAfter, d.HasRetryAfter, d.RetryAfterFrom = retryIn, true, fromBreaker
	}
	return Step{Action: ActionStop}
}

// gateStop says why the loop cannot wait wait for the rate gate with remaining left
// before its deadline: the wait would leave too little time for the attempt
// (ReasonRateLimitExceedsDeadline) or pass MaxWait (ReasonRetryAfterExceedsMaxWait: the
// gate's time is the server's). "" means it can.
func (l *Loop) gateStop(wait, remaining time.Duration) Reason {
	if !l.s.Deadline.IsZero() && !l.p.leavesAttemptTime(remaining, wait) {
		return ReasonRateLimitExceedsDeadline
	}
	if mw := l.p.maxWait(); mw != NoLimit && wait > mw {
		return ReasonRetryAfterExceedsMaxWait
	}
	return ""
}

// refuseRate stops the loop before an attempt for reason, a rate gate's time wait away
// that does not fit; the *Error's RetryAfter says it.
func (l *Loop) refuseRate(reason Reason, wait time.Duration) Step {
	step := l.stopWithout(reason)
	l.gateRetryIn = wait
	return step
}

// admitRetry asks the gates, at now, about the retry d decided after an attempt whose result
// was r: the rate gate gives it a time to send, which lengthens the wait when later, and
// stops the loop when the longer wait does not fit; the retry budget, told the result,
// may refuse the retry, unless the server paced it (a server's wait, the rate gate's, or a
// throttle: the server works, and asks the caller to slow down), which no budget refuses.
// hedge says the attempt was a hedge; neverReached, that it put no load on the server, so
// that the budget is neither told nor asked. Under an outer loop (Operation.OuterAttempt),
// the retry is the outer loop's to make: the rate gate's time is given back at once, and
// d.Wait keeps only the wait the server or the rate gate asks for, the outer loop having a
// backoff of its own.
func (l *Loop) admitRetry(d *Decision, r Result, now time.Time, hedge, neverReached bool) {
	paced := d.Retry && d.Reason == ReasonRetryAfter // the wait is the server's
	if g := l.p.RateGate; g != nil && d.Retry {
		// A gate that holds the retry past the server's wait lets it go at its pace, which
		// spreads the loops it holds: the spread on the server's wait would only push it
		// into a later window.
		l.reserve(g, now, now.Add(d.least))
		if at := l.rate.at.Sub(now); at > d.least && at < d.Wait {
			l.gateWait, d.Wait = at-d.least, at
		} else if at <= d.least && d.Wait > d.least { // the gate lets it go: keep the spread
			l.cancelReservation()
			l.reserve(g, now, now.Add(d.Wait))
		}
		if wait := l.rate.at.Sub(now); wait > d.Wait {
			if reason := l.gateStop(wait, d.Remaining); reason != "" {
				l.cancelReservation()
				l.gateRetryIn = wait
				d.stop(reason)
				return
			}
			l.gateWait, d.Wait, paced = wait-d.Wait, wait, true
		}
	}
	if !neverReached && !isNoBudget(l.p.Budget) {
		l.tellBudget(d, r, now, hedge)
		if d.Retry && !paced && !d.Throttled && !l.allowRetry(now) {
			l.cancelReservation()
			l.refusedWait = d.Wait
			d.stop(ReasonRetryBudgetExhausted)
			return
		}
	}
	if l.outer > 0 && d.Retry {
		l.cancelReservation()
		if !paced {
			d.Wait = 0
		}
	}
}

// admitHedge asks the gates, at now, to send a hedge of the attempt in flight: the Hedger's
// own budget, the rate gate (a hedge goes now or not at all: no room now refuses it), the
// breaker and the retry budget, which counts a hedge as a retry. It returns what they
// granted, or why one refused, having given back what the others granted.
func (l *Loop) admitHedge(now time.Time) (grant, HedgeRefusal) {
	var sent grant
	if !l.p.Hedge.AllowHedge() {
		return sent, HedgeRefusedHedgeBudget
	}
	if g := l.p.RateGate; g != nil {
		at, token := g.Reserve(now, now)
		if at.After(now) {
			g.Cancel(token, now)
			return sent, HedgeRefusedRateLimit // a hedge goes now or not at all
		}
		sent.rate = token
	}
	if b := l.p.Breaker; b != nil {
		var ok bool
		if sent.breaker, ok, _ = b.Allow(); !ok {
			l.cancelGrant(sent, now)
			return grant{}, HedgeRefusedCircuitOpen
		}
	}
	if !l.allowRetry(now) {
		if l.p.Breaker != nil {
			l.p.Breaker.Done(sent.breaker, ResultIgnored) // admitted, never sent
		}
		l.cancelGrant(sent, now)
		return grant{}, HedgeRefusedRetryBudget
	}
	sent.live = true
	return sent, 0
}

// cancelGrant gives the rate gate back the time it granted an attempt that is not sent.
func (l *Loop) cancelGrant(sent grant, now time.Time) {
	if g := l.p.RateGate; g != nil {
		g.Cancel(sent.rate, now)
	}
}

// tellGates tells the gates that granted an attempt its result r at now: the breaker
// (with the server's wait when it is a [RetryAfterReceiver]) and the rate gate, which
// takes back the time of an attempt that never reached the server.
func (l *Loop) tellGates(sent grant, now time.Time, r Result, o *Outcome) {
	if !sent.live {
		return
	}
	var wait time.Duration
	if o.HasRetryAfter && o.RetryAfter > 0 {
		wait = o.RetryAfter
	}
	if b := l.p.Breaker; b != nil {
		if w, ok := b.(RetryAfterReceiver); ok && wait > 0 {
			w.DoneRetryAfter(sent.breaker, r, wait)
		} else {
			b.Done(sent.breaker, r)
		}
	}
	if g := l.p.RateGate; g != nil {
		if o.NeverReached {
			g.Cancel(sent.rate, now)
		} else {
			g.Done(sent.rate, now, r, wait)
		}
	}
}

// cancelReservation gives the rate gate's time for the next attempt back, if the loop holds
// one.
func (l *Loop) cancelReservation() {
	if l.rate.held {
		l.p.RateGate.Cancel(l.rate.token, l.s.Now)
		l.rate = reservation{}
	}
}

// release gives back, at now, whatever the gates granted that the loop will not use: a
// driver whose operation, classifier or observer panicked calls it as the stack unwinds.
// An attempt in flight is told to every gate as a failure (a trial call that panicked
// failed), the hedges of a round too (those the loop canceled as ResultIgnored), and the
// rate gate's time for a next attempt is given back. A place to wait for the breaker
// (TrialReserver) is held until the breaker's state changes, as always. It is a no-op for
// a loop that holds nothing.
func (l *Loop) release(now time.Time, panicked int) {
	if l.p == nil {
		return
	}
	l.s.Now = now
	if l.sent.live {
		l.tellGates(l.sent, now, ResultFailure, &Outcome{})
		if !isNoBudget(l.p.Budget) {
			l.tellBudget(&l.d, ResultFailure, now, false)
		}
		l.sent = grant{}
	}
	l.releaseHedges(now, panicked)
	l.cancelReservation()
}
