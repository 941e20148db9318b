package retry

import "time"

// hedgeRound is a Loop's state of hedging: the current round (an attempt and its hedges)
// and what holds for the whole loop. A Loop has one only when its policy has a Hedger and
// its driver hedges; the Loop itself keeps a pointer, so that a loop that does not hedge
// stays as small as before.
type hedgeRound struct {
	flights [1 + MaxHedges]flight // 0: the round's attempt; n: its n-th hedge
	running int                   // attempts of the round in flight
	sent    int                   // hedges sent in the round
	allowed int                   // hedges the round may send
	delay   time.Duration         // the round's hedge delay
	refused HedgeRefusal          // a refusal not yet in a record: the next record says it
	// hedged: the round sent a hedge, so its records say winner. decided: the round's
	// decision is made, so the attempts still in flight are losers. byHedge: a hedge's own
	// answer decided it, so the attempt it hedged was superseded.
	hedged, decided, byHedge bool
	// slowDown: a server asked this loop for a wait; it sends no more hedges.
	slowDown bool
	deciding int      // the attempt of the round whose end the loop is deciding on
	lost     Decision // the record of a Lost attempt, with the loop's labels
}

// flight is one attempt of a round.
type flight struct {
	start   time.Time
	grant   grant // what the gates granted it
	running bool
}

// startRound sets up the hedging of the attempt Next starts at now, and returns the delay
// after which the driver asks Next for a hedge; 0 for none.
func (l *Loop) startRound(now time.Time) time.Duration {
	if l.p.Hedge == nil || l.noHedge {
		return 0
	}
	h := l.h
	if h == nil {
		h = new(hedgeRound)
		l.h = h
	}
	h.lost.truncateAttrs(0)
	for i := range l.d.labels {
		h.lost.add(l.d.attr(i))
	}
	h.lost.labels = l.d.labels
	delay, hedges := l.p.Hedge.Attempt()
	h.flights = [1 + MaxHedges]flight{{start: now, grant: l.sent, running: true}}
	l.sent = grant{} // the flight holds it
	h.running, h.sent, h.hedged, h.decided, h.byHedge, h.delay = 1, 0, false, false, false, delay
	h.allowed = min(max(hedges, 0), MaxHedges)
	if delay <= 0 {
		h.allowed = 0
	}
	if h.allowed == 0 {
		return 0
	}
	return delay
}

// nextHedge is Next while attempts of the round are in flight: send a hedge now, or await
// the answers. A refusal ends the round's hedging and goes in its next record.
func (l *Loop) nextHedge(now time.Time) Step {
	h := l.h
	if h.decided || h.sent >= h.allowed {
		return Step{Action: ActionAwait}
	}
	if h.slowDown {
		return h.refuse(HedgeRefusedRetryAfter)
	}
	if !l.s.Deadline.IsZero() {
		if left := l.s.Deadline.Sub(now) - l.suspended; left < h.delay || !l.p.leavesAttemptTime(left, 0) {
			return h.refuse(HedgeRefusedDeadline)
		}
	}
	sent, refused := l.admitHedge(now)
	if refused != 0 {
		return h.refuse(refused)
	}
	l.p.Hedge.Hedged()
	h.sent++
	h.hedged = true
	h.flights[h.sent] = flight{start: now, grant: sent, running: true}
	h.running++
	step := Step{Action: ActionAttempt, Attempt: l.s.Attempt, Hedge: h.sent,
		Deadline: l.p.attemptDeadline(l.s.Deadline, now)}
	if h.sent < h.allowed {
		step.HedgeAfter = h.delay
	}
	return step
}

// releaseHedges tells the gates, at now, the result of every attempt of the round still
// in flight when the driver gives up on the round (see Loop.release): a failure for the
// attempt that panicked (hedge number panicked; -1 when the panic came after the attempt
// returned: the attempt the loop was deciding on), ResultIgnored for the others, which the
// driver canceled.
func (l *Loop) releaseHedges(now time.Time, panicked int) {
	h := l.h
	if h == nil {
		return
	}
	if panicked < 0 {
		panicked = h.deciding
	}
	for i := range h.flights {
		f := &h.flights[i]
		if !f.running || !f.grant.live {
			continue
		}
		r := ResultIgnored
		if i == panicked {
			r = ResultFailure
		}
		l.tellGates(f.grant, now, r, &Outcome{})
		f.grant, f.running = grant{}, false
		h.running--
	}
}

// refuse ends the round's hedging for reason r, which the round's next record gives.
func (h *hedgeRound) refuse(r HedgeRefusal) Step {
	h.refused, h.allowed = r, h.sent
	return Step{Action: ActionAwait}
}

// doneAt records the end of attempt hedge of the round (0: the round's attempt), as Done
// does; see DoneHedge.
func (l *Loop) doneAt(hedge int, now time.Time, o Outcome, interrupted error) *Decision {
	h := l.h
	if h == nil || hedge < 0 || hedge > MaxHedges || !h.flights[hedge].running {
		return l.conclude(now, o, interrupted, false)
	}
	l.startZero(now)
	f := &h.flights[hedge]
	h.deciding = hedge         // a panic in the classifier fails this attempt (see releaseHedges)
	o.Class = l.p.classify(&o) // once: conclude and recordOutcome read it back
	f.running = false
	h.running--
	if _, _, asked := serverWait(o.Err); asked || o.HasRetryAfter {
		h.slowDown = true
	}
	if h.decided || (o.Class == ClassRetryable && interrupted == nil && h.running > 0) {
		return l.lose(hedge, f, now, o, interrupted)
	}
	l.sent, l.s.AttemptStart = f.grant, f.start
	f.grant = grant{}
	d := l.conclude(now, o, interrupted, hedge > 0)
	// The round's winner is the attempt whose answer decided; when the caller's context or
	// the deadline ended the round, no answer did: its decision says winner false.
	d.Hedge, d.inHedgedRound = hedge > 0, h.hedged
	d.Winner = h.hedged && d.Reason != ReasonCanceled && d.Reason != ReasonDeadlineExceeded
	d.HedgeRefused, h.refused = h.refused, 0
	if hedge == 0 && d.Class == ClassSuccess {
		l.p.Hedge.Latency(now.Sub(f.start), false)
	}
	h.decided = !d.Retry
	h.byHedge = hedge > 0 && interrupted == nil
	return d
}

// lose records an attempt of the round whose answer the loop does not use: one that failed
// while another was in flight, or one still in flight when the round was decided, which
// the driver has canceled. The breaker hears a canceled one's failure as ResultIgnored: the
// loop canceled it, and that says nothing about the service.
func (l *Loop) lose(hedge int, f *flight, now time.Time, o Outcome, interrupted error) *Decision {
	h := l.h
	r := ResultOf(o.Class, interrupted != nil)
	if h.decided && r == ResultFailure {
		r = ResultIgnored
	}
	l.tellGates(f.grant, now, r, &o)
	f.grant = grant{}
	if !now.Before(l.s.Now) {
		l.s.Now = now
	}
	if !h.decided {
		l.noteFailure(o, interrupted)
	}
	s := l.s
	s.Now, s.AttemptStart, s.Interrupted, s.BreakerRetryIn = now, f.start, interrupted, 0
	d := &h.lost
	recordOutcome(d, l.p, &s, &o)
	d.Lost, d.Hedge = true, hedge > 0
	d.HedgeRefused, h.refused = h.refused, 0
	reportTo(d, l.p.Breaker, now)
	reportTo(d, l.p.Budget, now)
	if !o.NeverReached {
		l.tellBudget(d, r, now, hedge > 0)
	}
	if hedge == 0 {
		switch {
		case o.Class == ClassSuccess && interrupted == nil:
			l.p.Hedge.Latency(now.Sub(f.start), false)
		case h.decided && h.byHedge:
			l.p.Hedge.Latency(now.Sub(f.start), true)
		}
	}
	return d
}

// DoneHedge is [Loop.Done] for one attempt of a round that hedges: hedge is the attempt's
// Step.Hedge, 0 for the round's own attempt. Call it once for every attempt started,
// whatever the others did.
//
// While another attempt of the round is in flight, an attempt that fails with a retryable
// failure does not decide: its decision has Lost set (its record has no decision), and the
// driver goes on waiting. The first answer that decides (a success, a permanent failure,
// an unknown outcome, the caller's context ending, or the round's last failure) is the
// loop's decision, with Winner set when the round sent a hedge. When that decision is to
// stop, cancel the attempts still in flight, and report each with DoneHedge as it ends: its
// decision has Lost set, and its failure, which the cancellation caused, reaches the
// breaker as ResultIgnored. A decision to retry comes only once no attempt is in flight.
func (l *Loop) DoneHedge(hedge int, now time.Time, o Outcome, interrupted error) Decision {
	return *l.doneAt(hedge, now, o, interrupted)
}
