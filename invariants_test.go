package retry

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/retrykit/retry/backoff"
	"pgregory.net/rapid"
)

// The invariants of a wait (issue 20 item 2), as properties over Decide and over a Loop
// driven by random server scripts, for random policies (every Policy field, a Hedger
// among them: a driver that runs one attempt at a time never hedges) and outcomes (every
// kind). Each holds for every input, not only for the examples of the issues (hedging's
// own are in invariants_hedge_test.go):
//  1. a retry's wait is at least the backoff's draw for that retry (only MaxWait cuts it)
//     and at least the server-requested wait (SPEC R4.4);
//  2. a server wait never shortens a wait: with it the loop waits at least as long as
//     without it, or stops (SPEC R4.4, R4.3);
//  3. no retry's wait, plus MinAttemptTime, passes the deadline (SPEC R2.3);
//  4. a wait is at most MaxWait; a server wait above it stops the loop (SPEC R4.4);
//  5. the spread adds at most its bound to a server wait;
//  6. one seed gives one sequence of decisions (SPEC R1.5);
//  7. against a server that always asks for a wait shorter than the backoff's (Retry-After:
//     0), a loop makes no more attempts than against one that asks for none, and each wait
//     is at least the backoff's draw (kubescape/kubevuln#754: 1,000 requests in 2 s);
//  8. a wait for the circuit breaker is at most BreakerWait (none by default; issue 21).

// recordingSource is a Source that keeps every number it gives, so a property knows the
// backoff's draw of a decision: the first number drawn by it.
type recordingSource struct {
	src   backoff.Source
	draws []uint64
}

func (r *recordingSource) Uint64() uint64 {
	v := r.src.Uint64()
	r.draws = append(r.draws, v)
	return v
}

func newRecording(seed uint64) *recordingSource {
	return &recordingSource{src: backoff.NewSource(seed)}
}

// msBetween draws a whole number of milliseconds in [lo, hi].
func msBetween(rt *rapid.T, name string, lo, hi int) time.Duration {
	return time.Duration(rapid.IntRange(lo, hi).Draw(rt, name)) * time.Millisecond
}

// genStrategy draws a backoff strategy of any kind, jitter and growth; the zero Strategy
// (the default) among them.
func genStrategy(rt *rapid.T) backoff.Strategy {
	if rapid.IntRange(0, 5).Draw(rt, "defaultBackoff") == 0 {
		return backoff.Strategy{}
	}
	c := backoff.Config{
		Kind:   backoff.Kind(rapid.IntRange(0, 2).Draw(rt, "kind")),
		Jitter: backoff.Jitter(rapid.IntRange(0, 5).Draw(rt, "jitter")),
		Base:   msBetween(rt, "base", 0, 3000),
	}
	c.Max = c.Base + msBetween(rt, "maxAboveBase", 0, 20000)
	if c.Kind == backoff.Exponential && rapid.Bool().Draw(rt, "multiplier") {
		c.Multiplier = rapid.SampledFrom([]float64{1, 1.5, 1.6, 3}).Draw(rt, "multiplierValue")
	}
	s, err := backoff.New(c)
	if err != nil {
		rt.Fatalf("backoff.New(%+v): %v", c, err)
	}
	return s
}

// genPolicy draws a valid policy over every field that Decide and the Loop read, with src
// as Random; checkLoopInvariants adds a Breaker and a Budget of its own (see
// TestGeneratorsCoverEveryPolicyField).
func genPolicy(rt *rapid.T, src backoff.Source) *Policy {
	durationOrDefault := func(name string, hi int) time.Duration {
		switch rapid.IntRange(0, 3).Draw(rt, name+"Kind") {
		case 0:
			return 0
		case 1:
			return NoLimit
		}
		return msBetween(rt, name, 1, hi)
	}
	p := &Policy{
		MaxAttempts:      rapid.SampledFrom([]int{0, NoLimit, 1, 2, 3, 5, 20, 1000}).Draw(rt, "maxAttempts"),
		Backoff:          genStrategy(rt),
		Timeout:          durationOrDefault("timeout", 60000),
		MaxWait:          durationOrDefault("maxWait", 30000),
		RetryAfterSpread: rapid.SampledFrom([]float64{0, None, 0.01, 0.1, 0.5, 1}).Draw(rt, "spread"),
		Random:           src,
		Nested:           Nested(rapid.IntRange(0, 3).Draw(rt, "nested") / 3),
		BreakerWait:      durationOrDefault("breakerWait", 30000),
	}
	if rapid.Bool().Draw(rt, "noBudget") {
		p.Budget = NoBudget // else the default budget, of this Policy value
	}
	if rapid.Bool().Draw(rt, "attemptTimeout") {
		p.AttemptTimeout = msBetween(rt, "attemptTimeoutValue", 10, 10000)
	}
	if rapid.Bool().Draw(rt, "minAttemptTime") {
		p.MinAttemptTime = msBetween(rt, "minAttemptTimeValue", 1, 2000)
	}
	switch rapid.IntRange(0, 3).Draw(rt, "statuses") {
	case 1:
		p.RetryableStatuses = []int{}
	case 2:
		p.RetryableStatuses = []int{503}
	case 3:
		p.RetryableStatuses = []int{429, 500, 503, 529}
	}
	if rapid.Bool().Draw(rt, "classifier") {
		permanent := rapid.SampledFrom([]int{400, 404, 500, 503}).Draw(rt, "classifierPermanent")
		p.Classifier = func(o Outcome) Class {
			if o.Status == permanent {
				return ClassPermanent
			}
			return ClassUnspecified
		}
	}
	if rapid.IntRange(0, 2).Draw(rt, "hedging") == 0 {
		p.Hedge = genHedger(rt)
	}
	if err := p.Validate(); err != nil {
		rt.Fatalf("generated an invalid policy: %v", err)
	}
	return p
}

var errInvariant = errors.New("connection reset by peer")

// genOutcome draws an attempt's outcome of any kind: success, a status (retryable,
// permanent, unregistered, invalid), a plain error, an error marked Permanent, Retryable,
// UnknownOutcome or After, an explicit Class, with or without a server-requested wait.
func genOutcome(rt *rapid.T) Outcome {
	var o Outcome
	switch rapid.IntRange(0, 11).Draw(rt, "outcomeKind") {
	case 0: // success
	case 1:
		o.Status = rapid.SampledFrom([]int{200, 304, 400, 404, 408, 413, 429, 500, 502, 503, 504, 520, 529, 600}).Draw(rt, "status")
	case 2:
		o.Err = errInvariant
	case 3:
		o.Err = Permanent(errInvariant)
	case 4:
		o.Err = Retryable(errInvariant)
	case 5:
		o.Err = UnknownOutcome(errInvariant)
	case 6:
		o.Err = After(errInvariant, msBetween(rt, "afterWait", -10, 20000))
	case 7:
		o.Status = 503
		o.Class = Class(rapid.IntRange(0, 4).Draw(rt, "class"))
	default: // the common failure, so that most draws reach the waits
		o.Status = rapid.SampledFrom([]int{429, 503}).Draw(rt, "retryableStatus")
	}
	if o.Err != nil || o.Status >= 400 {
		o.NeverReached = rapid.IntRange(0, 3).Draw(rt, "neverReached") == 0
	}
	switch rapid.IntRange(0, 4).Draw(rt, "retryAfterKind") {
	case 1:
		o.RetryAfter, o.HasRetryAfter = 0, true
	case 2:
		o.RetryAfter, o.HasRetryAfter = msBetween(rt, "retryAfter", -10, 1000), true
	case 3:
		o.RetryAfter, o.HasRetryAfter = msBetween(rt, "retryAfterLong", -10, 40000), true
	}
	if o.HasRetryAfter {
		o.RetryAfterFrom = rapid.SampledFrom(serverWaitSources).Draw(rt, "retryAfterFrom")
	}
	return o
}

// serverWaitSources are the sources of a server's wait that the adapters name (the record's
// retry_after_from): every one goes through the same rule of Decide.
var serverWaitSources = []string{"", "retry-after", "retry-after-ms", "x-ms-retry-after-ms", "ratelimit",
	"x-ratelimit-reset-requests", "x-ratelimit-reset-tokens", "anthropic-ratelimit-requests-reset",
	"anthropic-ratelimit-tokens-reset", "anthropic-ratelimit-input-tokens-reset",
	"anthropic-ratelimit-output-tokens-reset", "grpc-retry-pushback-ms", "retry-info"}

// genState draws the state after an attempt under p: its number, times, deadline, previous
// wait, nesting, the caller's interruption and the breaker's admission time. The time left
// is often near the backoff's ceiling for the attempt, where a wait stops fitting.
func genState(rt *rapid.T, p *Policy) State {
	now := t0.Add(msBetween(rt, "elapsed", 0, 30000))
	attempts := 25
	if limit := p.maxAttempts(); limit != NoLimit && rapid.IntRange(0, 3).Draw(rt, "withinLimit") > 0 {
		attempts = max(1, limit-1) // an attempt the limit leaves a retry after, most often
	}
	s := State{Attempt: rapid.IntRange(1, attempts).Draw(rt, "attempt"), Start: t0, Now: now,
		AttemptStart: now.Add(-msBetween(rt, "attemptDuration", 0, 5000)),
		PreviousWait: msBetween(rt, "previousWait", 0, 20000),
		Nested:       rapid.Bool().Draw(rt, "nestedState")}
	switch rapid.IntRange(0, 2).Draw(rt, "deadlineKind") {
	case 1:
		s.Deadline = now.Add(msBetween(rt, "remaining", -100, 30000))
	case 2:
		ceiling := p.strategy().Ceiling(s.Attempt - 1)
		s.Deadline = now.Add(time.Duration(float64(ceiling) * rapid.Float64Range(0, 1.5).Draw(rt, "remainingOfCeiling")))
	}
	switch rapid.IntRange(0, 15).Draw(rt, "interrupted") {
	case 0:
		s.Interrupted = context.Canceled
	case 1:
		s.Interrupted = context.DeadlineExceeded
	}
	switch rapid.IntRange(0, 3).Draw(rt, "breaker") {
	case 1:
		s.BreakerRetryIn = msBetween(rt, "breakerRetryIn", 1, 40000)
	case 2:
		s.BreakerRetryIn = -1
	}
	return s
}

// requestedWait is the wait the server asked for in o, as Decide reads it: the outcome's own,
// else one carried by its error; a negative one is no request (SPEC R4.3).
func requestedWait(o Outcome) (time.Duration, bool) {
	ra, ok := o.RetryAfter, o.HasRetryAfter
	if !ok && o.Err != nil {
		ra, ok = RetryAfter(o.Err)
	}
	if !ok || ra < 0 {
		return 0, false
	}
	return ra, true
}

// withoutServerWait is o with its server-requested wait taken away, its class unchanged.
func withoutServerWait(o Outcome) Outcome {
	o.RetryAfter, o.HasRetryAfter = 0, false
	var m *markedError
	if errors.As(o.Err, &m) && m.after {
		o.Err = Retryable(m.err)
	}
	return o
}

// backoffDraw is the backoff's wait for the decision that drew draws (its first number),
// cut to MaxWait; ok is false when the decision drew nothing.
func backoffDraw(p *Policy, s State, draws []uint64) (time.Duration, bool) {
	if len(draws) == 0 {
		return 0, false
	}
	w := p.strategy().Delay(s.Attempt-1, s.PreviousWait, draws[0])
	if mw := p.maxWait(); mw != NoLimit {
		w = min(w, mw)
	}
	return w, true
}

// spreadBound is the most the spread may add to a server wait of ra under p: the whole of a
// wait of a second or less, else the share RetryAfterSpread of it (issue 20 item 3: a client
// told to come back in an hour must not come back an hour late).
func spreadBound(p *Policy, ra time.Duration) time.Duration {
	f := p.retryAfterSpread()
	switch {
	case f == 0:
		return 0
	case ra <= time.Second:
		return ra
	}
	return time.Duration(float64(ra) * f)
}

// checkWait checks invariants 1, 3, 4 and 5 on one decision d of Decide(p, s, o), whose
// draws the policy's source recorded.
func checkWait(rt *rapid.T, p *Policy, s State, o Outcome, d Decision, draws []uint64) {
	checkPacedWait(rt, p, s, o, d, draws, 0, false)
}

// checkPacedWait is checkWait for a loop whose rate gate gave its retry a time gateWait
// from now (0 for none), and that runs under an outer loop (outer), which waits by a
// backoff of its own: the loop's wait is then only the server's or the gate's, or 0.
func checkPacedWait(rt *rapid.T, p *Policy, s State, o Outcome, d Decision, draws []uint64, gateWait time.Duration, outer bool) {
	ra, hasRA := requestedWait(o)
	maxWait := p.maxWait()
	if o.HasRetryAfter && (d.HasRetryAfter != hasRA || hasRA && (d.RetryAfter != ra || d.RetryAfterFrom != o.RetryAfterFrom)) {
		rt.Fatalf("the record's server wait %v %v from %q; the outcome asked %v from %q", d.RetryAfter, d.HasRetryAfter,
			d.RetryAfterFrom, o.RetryAfter, o.RetryAfterFrom)
	}
	if !d.Retry {
		if d.Wait != 0 {
			rt.Fatalf("stop %s with a wait of %v", d.Reason, d.Wait)
		}
		return
	}
	draw, drew := backoffDraw(p, s, draws)
	if !drew {
		rt.Fatalf("a retry (%s) drew no backoff", d.Reason)
	}
	if d.Wait < gateWait && !outer { // the rate gate's time is never missed
		rt.Fatalf("wait %v is shorter than the rate gate's %v", d.Wait, gateWait)
	}
	if outer {
		if paced := hasRA || gateWait > 0; !paced && d.Wait != 0 {
			rt.Fatalf("under an outer loop, a retry with no server's or gate's wait asks for %v", d.Wait)
		}
		draw = 0 // the outer loop's backoff, not the loop's
	}
	if d.Wait < draw { // 1
		rt.Fatalf("invariant 1: wait %v is shorter than the backoff's draw %v (server wait %v %v)", d.Wait, draw, ra, hasRA)
	}
	if hasRA && d.Wait < ra { // 1
		rt.Fatalf("invariant 1: wait %v is shorter than the server's %v", d.Wait, ra)
	}
	if !s.Deadline.IsZero() { // 3
		left := s.Deadline.Sub(s.Now)
		if d.Wait >= left || left-d.Wait < p.MinAttemptTime {
			rt.Fatalf("invariant 3: wait %v with %v left and MinAttemptTime %v passes the deadline", d.Wait, left, p.MinAttemptTime)
		}
	}
	if maxWait != NoLimit && d.Wait > maxWait { // 4
		rt.Fatalf("invariant 4: wait %v is longer than MaxWait %v", d.Wait, maxWait)
	}
	if maxWait != NoLimit && hasRA && ra > maxWait {
		rt.Fatalf("invariant 4: retried after a server wait %v above MaxWait %v", ra, maxWait)
	}
	if hasRA { // 5
		if bound := max(draw, ra+spreadBound(p, ra), gateWait); d.Wait > bound && !outer {
			rt.Fatalf("invariant 5: wait %v passes the backoff's %v and the server's %v plus the spread's bound %v",
				d.Wait, draw, ra, spreadBound(p, ra))
		}
	}
}

// TestDecideInvariants checks invariants 1-6 on Decide. A decision costs microseconds, so it
// runs 20 rounds of rapid's checks (2,000 cases by default), enough to meet the narrow
// boundaries (a backoff just too long for the time left, a server wait just shorter) in
// every run.
func TestDecideInvariants(t *testing.T) {
	for range 20 {
		rapid.Check(t, checkDecideInvariants)
	}
}

func checkDecideInvariants(rt *rapid.T) {
	{
		seed := rapid.Uint64().Draw(rt, "seed")
		src := newRecording(seed)
		p := genPolicy(rt, src)
		s, o := genState(rt, p), genOutcome(rt)
		d := Decide(p, s, o)
		checkWait(rt, p, s, o, d, src.draws)

		// 6: the same seed, the same decision.
		again := *p
		again.Random = newRecording(seed)
		if d2 := Decide(&again, s, o); !reflect.DeepEqual(d, d2) {
			rt.Fatalf("invariant 6: one seed, two decisions:\n%+v\n%+v", d, d2)
		}

		// 2: without the server's wait, the loop would not wait longer, nor retry where it
		// stops now for lack of time.
		if _, hasRA := requestedWait(o); !hasRA {
			return
		}
		bare := *p
		bare.Random = newRecording(seed)
		without := Decide(&bare, s, withoutServerWait(o))
		if without.Class != d.Class {
			return // the wait decides the class (413 with Retry-After): not comparable
		}
		if d.Retry && !without.Retry && without.Reason == ReasonWaitExceedsDeadline {
			rt.Fatalf("invariant 2: without the server's wait the loop stops (%s), with it it retries after %v",
				without.Reason, d.Wait)
		}
		if d.Retry && without.Retry && d.Wait < without.Wait {
			rt.Fatalf("invariant 2: the server's wait shortened the wait from %v to %v", without.Wait, d.Wait)
		}
	}
}

// breakerScript refuses or admits by a script, the last answer repeating, reports a state
// and an admission time, and gives places to wait for a trial by a script, so that a Loop
// meets every path of the breaker.
type breakerScript struct {
	admits  []bool
	retryIn []time.Duration
	places  []bool
	calls   int
	asked   int
}

func (b *breakerScript) ReserveTrial() bool {
	i := min(b.asked, len(b.places)-1)
	b.asked++
	return b.places[i]
}

func (b *breakerScript) Allow() (uint64, bool, time.Duration) {
	i := min(b.calls, len(b.admits)-1)
	b.calls++
	return uint64(i), b.admits[i], b.retryIn[i]
}

func (b *breakerScript) Done(uint64, Result) {}

func (b *breakerScript) RetryIn() time.Duration {
	i := min(b.calls, len(b.admits)-1)
	if b.admits[i] {
		return 0
	}
	return b.retryIn[i]
}

// budgetScript allows or refuses retries by a script, the last answer repeating.
type budgetScript struct {
	allows []bool
	calls  int
}

func (b *budgetScript) AllowRetry() bool {
	i := min(b.calls, len(b.allows)-1)
	b.calls++
	return b.allows[i]
}

func (b *budgetScript) Done(bool, Result) {}

// rateScript is a rate gate that gives each reservation a time a scripted delay past
// notBefore (the last delay repeating), and keeps the reservations not yet sent or given
// back, so that a driver checks that every one is used or given back once and that no
// attempt goes before its time.
type rateScript struct {
	delays []time.Duration
	asks   []bool // the first answers: token 0, ask again after the delay (nothing reserved)
	calls  int
	asked  bool // the latest answer was token 0
	next   uint64
	open   map[uint64]time.Time // token → time to send
	lastAt time.Time            // the time of the latest reservation
	bad    string               // the first misuse seen
}

func (g *rateScript) Reserve(now, notBefore time.Time) (time.Time, uint64) {
	i := min(g.calls, len(g.delays)-1)
	g.calls++
	g.next++
	if g.open == nil {
		g.open = map[uint64]time.Time{}
	}
	at := notBefore.Add(g.delays[i])
	g.lastAt, g.asked = at, g.calls <= len(g.asks) && g.asks[g.calls-1] // then it settles

	if g.asked {
		return at, 0
	}
	g.open[g.next] = at
	return at, g.next
}

func (g *rateScript) Cancel(token uint64, _ time.Time) { g.close(token, "Cancel") }

func (g *rateScript) Done(token uint64, _ time.Time, _ Result, _ time.Duration) {
	g.close(token, "Done")
}

func (g *rateScript) close(token uint64, how string) {
	if token == 0 {
		return // nothing was reserved
	}
	if _, ok := g.open[token]; !ok && g.bad == "" {
		g.bad = fmt.Sprintf("%s of reservation %d, which is not open", how, token)
	}
	delete(g.open, token)
}

// serverScript is what a server does at each attempt (the last step repeating): the
// outcome, and how long the attempt runs.
type serverScript struct {
	outcomes  []Outcome
	durations []time.Duration
}

func genScript(rt *rapid.T) serverScript {
	n := rapid.IntRange(1, 6).Draw(rt, "steps")
	var sc serverScript
	for range n {
		sc.outcomes = append(sc.outcomes, genOutcome(rt))
		sc.durations = append(sc.durations, msBetween(rt, "attemptRuns", 10, 3000))
	}
	return sc
}

// genCaller draws what a loop's caller gives it: a deadline (the zero Time for none) and
// whether the loop runs inside another's attempt.
func genCaller(rt *rapid.T) (callerDeadline time.Time, nested bool) {
	if rapid.Bool().Draw(rt, "callerDeadline") {
		callerDeadline = t0.Add(msBetween(rt, "callerDeadlineIn", 0, 30000))
	}
	return callerDeadline, rapid.Bool().Draw(rt, "nestedLoop")
}

// bounded gives p an attempt limit when it has neither that nor a Timeout: such a loop
// never ends against a server that always fails, as its caller asked.
func bounded(p *Policy) *Policy {
	if p.MaxAttempts == NoLimit && p.Timeout == NoLimit {
		p.MaxAttempts = 200
	}
	return p
}

// loopRun is what a driven Loop did.
type loopRun struct {
	attempts  int
	decisions []Decision
	final     Decision
}

// driveLoop runs a Loop under p on virtual time against sc, as Do would: an attempt that
// runs past its deadline ends there with the deadline's error. It checks the wait
// invariants on every decision, and that no wait (a retry's, or one for the breaker or the
// rate gate) leaves less than MinAttemptTime before the deadline (3). With a rateScript as
// the policy's RateGate, it checks that no attempt goes before its reserved time and that
// every reservation is used or given back once. outer, when positive, runs the loop as
// attempt number outer of an outer loop (Operation.OuterAttempt), as run does. It fails
// after 200,000 steps: attempts last at least 10 ms, so a bounded loop ends well before.
func driveLoop(rt *rapid.T, p *Policy, src *recordingSource, callerDeadline time.Time, nested bool, outer int, sc serverScript) loopRun {
	l, err := NewLoop(p, t0, callerDeadline, nested)
	if err != nil {
		rt.Fatalf("NewLoop: %v", err)
	}
	if outer > 0 {
		l.outer, l.s.Attempt = outer, outer-1 // as run sets them from Operation.OuterAttempt
	}
	gate, _ := p.RateGate.(*rateScript)
	end := func(run loopRun) loopRun {
		if gate != nil && (gate.bad != "" || len(gate.open) != 0) {
			rt.Fatalf("the rate gate: %s; %d reservations left open at the end (%s)", gate.bad, len(gate.open), run.final.Reason)
		}
		return run
	}
	var run loopRun
	now := t0
	for range 200000 {
		step := l.Next(now)
		switch step.Action {
		case ActionStop:
			run.final = l.Decision()
			return end(run)
		case ActionWait:
			if dl := l.State().Deadline; !dl.IsZero() && (now.Add(step.Wait).Compare(dl) >= 0 || dl.Sub(now.Add(step.Wait)) < p.MinAttemptTime) {
				rt.Fatalf("invariant 3: a wait of %v for a gate at %v passes the deadline %v", step.Wait, now.Sub(t0), dl.Sub(t0))
			}
			forGate := gate != nil && l.rate.held && l.rate.at.Equal(now.Add(step.Wait))
			if maxWait := p.maxWait(); forGate && maxWait != NoLimit && step.Wait > maxWait { // 4
				rt.Fatalf("invariant 4: a wait of %v for the rate gate, MaxWait %v", step.Wait, maxWait)
			}
			if !forGate && p.BreakerWait != NoLimit && step.Wait > p.BreakerWait { // 8
				rt.Fatalf("invariant 8: a wait of %v for the breaker, BreakerWait %v", step.Wait, p.BreakerWait)
			}
			now = now.Add(step.Wait)
			continue
		}
		if gate != nil && gate.asked { // nothing reserved: only once the time has come
			if len(gate.open) != 0 || now.Before(gate.lastAt) {
				rt.Fatalf("attempt %d sent at %v, %d reservations open, the gate's time %v", step.Attempt, now.Sub(t0), len(gate.open), gate.lastAt.Sub(t0))
			}
		} else if gate != nil { // the attempt goes under the one reservation the loop holds
			if len(gate.open) != 1 {
				rt.Fatalf("attempt %d sent at %v with %d reservations open", step.Attempt, now.Sub(t0), len(gate.open))
			}
			for _, at := range gate.open {
				if now.Before(at) {
					rt.Fatalf("attempt %d sent at %v, before its reserved time %v", step.Attempt, now.Sub(t0), at.Sub(t0))
				}
			}
		}
		i := min(run.attempts, len(sc.outcomes)-1)
		run.attempts++
		o, runs := sc.outcomes[i], sc.durations[i]
		var interrupted error
		if !step.Deadline.IsZero() && now.Add(runs).After(step.Deadline) {
			now = step.Deadline
			o = Outcome{Err: context.DeadlineExceeded}
			if !callerDeadline.IsZero() && !now.Before(callerDeadline) {
				interrupted = context.DeadlineExceeded
			}
		} else {
			now = now.Add(runs)
		}
		s := l.State()
		s.Now = now
		before := len(src.draws)
		calls := gateCalls(gate)
		d := l.Done(now, o, interrupted)
		s.BreakerRetryIn = l.State().BreakerRetryIn
		var gateWait time.Duration
		if gateCalls(gate) > calls {
			gateWait = gate.lastAt.Sub(now)
		}
		checkPacedWait(rt, p, s, o, d, src.draws[before:], gateWait, outer > 0)
		run.decisions = append(run.decisions, d)
		if !d.Retry || outer > 0 {
			run.final = d
			return end(run)
		}
		now = now.Add(d.Wait)
	}
	rt.Fatalf("the loop ran 200,000 steps")
	return run
}

// gateCalls is how many reservations g made; 0 without one.
func gateCalls(g *rateScript) int {
	if g == nil {
		return 0
	}
	return g.calls
}

// TestLoopInvariants checks invariants 1, 3, 4, 5 and 6 on a Loop driven by random server
// scripts, with a random breaker and budget among the policies; 5 rounds of rapid's checks.
func TestLoopInvariants(t *testing.T) {
	for range 5 {
		rapid.Check(t, checkLoopInvariants)
	}
}

func checkLoopInvariants(rt *rapid.T) {
	{
		seed := rapid.Uint64().Draw(rt, "seed")
		sc := genScript(rt)
		callerDeadline, nested := genCaller(rt)
		outer := rapid.SampledFrom([]int{0, 0, 1, 2, 3, 5}).Draw(rt, "outerAttempt") // an SDK's attempt
		var admits []bool
		var retryIn []time.Duration
		for range rapid.IntRange(1, 4).Draw(rt, "breakerSteps") {
			admits = append(admits, rapid.Bool().Draw(rt, "admit"))
			retryIn = append(retryIn, msBetween(rt, "breakerIn", -1, 5000))
		}
		places := rapid.SliceOfN(rapid.Bool(), 1, 3).Draw(rt, "breakerPlaces")
		allows := rapid.SliceOfN(rapid.Bool(), 1, 4).Draw(rt, "budgetAllows")
		withBreaker, withBudget := rapid.Bool().Draw(rt, "withBreaker"), rapid.Bool().Draw(rt, "withBudget")
		withGate := rapid.Bool().Draw(rt, "withRateGate")
		asks := rapid.SliceOfN(rapid.Bool(), 1, 4).Draw(rt, "gateAsksAgain")
		var delays []time.Duration
		for range rapid.IntRange(1, 4).Draw(rt, "gateSteps") {
			delays = append(delays, msBetween(rt, "gateDelay", 0, 40000)*time.Duration(rapid.IntRange(0, 1).Draw(rt, "gateHolds")))
		}
		build := func(src *recordingSource) *Policy {
			p := genPolicy(rt, src)
			if withBreaker {
				p.Breaker = &breakerScript{admits: admits, retryIn: retryIn, places: places}
			}
			if withBudget {
				p.Budget = &budgetScript{allows: allows}
			}
			if withGate {
				p.RateGate = &rateScript{delays: delays, asks: asks}
			}
			return p
		}
		src := newRecording(seed)
		p := bounded(build(src))
		first := driveLoop(rt, p, src, callerDeadline, nested, outer, sc)
		if outer > 0 && first.attempts > 1 {
			rt.Fatalf("attempt %d of an outer loop: %d attempts, want 1 at most", outer, first.attempts)
		}
		if outer > 0 && first.attempts == 1 && first.decisions[0].Attempt != outer {
			rt.Fatalf("attempt %d of an outer loop is numbered %d", outer, first.decisions[0].Attempt)
		}

		// 6: the same seed, the same decisions.
		again := *p
		againSrc := newRecording(seed)
		again.Random = againSrc
		if withBreaker {
			again.Breaker = &breakerScript{admits: admits, retryIn: retryIn, places: places}
		}
		if withBudget {
			again.Budget = &budgetScript{allows: allows}
		}
		if withGate {
			again.RateGate = &rateScript{delays: delays, asks: asks}
		}
		if second := driveLoop(rt, &again, againSrc, callerDeadline, nested, outer, sc); !reflect.DeepEqual(first, second) {
			rt.Fatalf("invariant 6: one seed, two runs:\n%+v\n%+v", first, second)
		}
	}
}

// TestLoopServerWaitNeverHastens checks invariant 7: a server that asks for waits shorter
// than the backoff's (Retry-After: 0 among them) gets no more attempts than one that asks
// for none, and every wait is at least the backoff's draw.
func TestLoopServerWaitNeverHastens(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		n := rapid.IntRange(1, 6).Draw(rt, "steps")
		var asking, silent serverScript
		for range n {
			runs := msBetween(rt, "attemptRuns", 10, 1000)
			ra := msBetween(rt, "retryAfter", 0, 50)
			if rapid.Bool().Draw(rt, "zero") {
				ra = 0
			}
			asking.outcomes = append(asking.outcomes, Outcome{Status: 503, RetryAfter: ra, HasRetryAfter: true})
			silent.outcomes = append(silent.outcomes, Outcome{Status: 503})
			asking.durations = append(asking.durations, runs)
			silent.durations = append(silent.durations, runs)
		}
		askingSrc := newRecording(seed)
		p := bounded(genPolicy(rt, askingSrc))
		withWait := driveLoop(rt, p, askingSrc, time.Time{}, false, 0, asking)
		bare := *p
		bareSrc := newRecording(seed)
		bare.Random = bareSrc
		withoutWait := driveLoop(rt, &bare, bareSrc, time.Time{}, false, 0, silent)
		if withWait.attempts > withoutWait.attempts {
			rt.Fatalf("invariant 7: %d attempts against a server asking for short waits, %d against one asking for none (final %s, %s)",
				withWait.attempts, withoutWait.attempts, withWait.final.Reason, withoutWait.final.Reason)
		}
	})
}

// TestGeneratorsCoverEveryPolicyField keeps the properties honest as Policy grows: every
// field of Policy is drawn to a value other than its zero value by genPolicy, or by
// checkLoopInvariants (Breaker, Budget), except those that cannot change a decision.
func TestGeneratorsCoverEveryPolicyField(t *testing.T) {
	byLoopInvariants := map[string]bool{"Breaker": true, "Budget": true, "RateGate": true}
	unread := map[string]string{"OnDecision": "an observer: it sees decisions, it does not make them"}
	set := map[string]bool{}
	rapid.Check(t, func(rt *rapid.T) {
		p := reflect.ValueOf(*genPolicy(rt, newRecording(1)))
		for i := range p.NumField() {
			if !p.Field(i).IsZero() {
				set[p.Type().Field(i).Name] = true
			}
		}
	})
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Policy]()) {
		if name := f.Name; !set[name] && !byLoopInvariants[name] && unread[name] == "" {
			t.Errorf("Policy.%s is never drawn by genPolicy: add it to the generators", name)
		}
	}
}
