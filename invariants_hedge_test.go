package retry

import (
	"context"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The invariants of hedging (issue 26), as properties over a Loop driven, on virtual time,
// by a driver that runs attempts concurrently (as RunConcurrent does), against random
// server scripts, policies (every field, a breaker and a retry budget among them) and
// Hedgers (delays, hedge counts, budgets). Each holds for every input:
//  1. no hedge starts at or past the deadline, nor with less time left than its delay or
//     MinAttemptTime (exactly the delay left is enough: issue 35 item 3);
//  2. every hedge passed the Hedger's budget, the breaker and the retry budget: the
//     hedges are at most the Hedger's grants, and retries plus hedges at most the retry
//     budget's; a hedge the retry budget refused left the breaker told ResultIgnored;
//  3. the attempts are bounded: a round sends at most min(hedges, MaxHedges) hedges, and
//     the loop at most limit × (1 + MaxHedges) requests;
//  4. one seed gives one sequence of steps and decisions;
//  5. every attempt started gets one record; the loop's own decisions keep the wait
//     invariants (1, 3, 4, 5 of invariants_test.go), a retry comes only once nothing is
//     in flight, and a canceled loser never reaches the breaker as a failure; no
//     decision that the caller's context or the deadline made, nor one without an
//     attempt, names a winner (issue 35 item 3).

// genHedger draws a Hedger: a delay (sometimes none), a number of hedges (sometimes more
// than the loop sends), and the answers of its own budget.
func genHedger(rt *rapid.T) *hedgerScript {
	h := &hedgerScript{delay: msBetween(rt, "hedgeDelay", 0, 1500), hedges: rapid.IntRange(0, MaxHedges+1).Draw(rt, "hedges")}
	if rapid.Bool().Draw(rt, "hedgeBudget") {
		h.allows = rapid.SliceOfN(rapid.Bool(), 1, 5).Draw(rt, "hedgeAllows")
	}
	return h
}

// grantingBreaker admits or refuses by a script (the last answer repeating), gives every
// admitted call a token of its own, and keeps the result of each.
type grantingBreaker struct {
	admits  []bool
	calls   int
	results map[uint64]Result
}

func (b *grantingBreaker) Allow() (uint64, bool, time.Duration) {
	i := min(b.calls, len(b.admits)-1)
	b.calls++
	return uint64(b.calls), b.admits[i], time.Second
}

func (b *grantingBreaker) Done(token uint64, r Result) {
	if b.results == nil {
		b.results = map[uint64]Result{}
	}
	b.results[token] = r
}

// grantCountingBudget is a budgetScript that counts the retries it granted.
type grantCountingBudget struct {
	budgetScript
	granted int
}

func (b *grantCountingBudget) AllowRetry() bool {
	ok := b.budgetScript.AllowRetry()
	if ok {
		b.granted++
	}
	return ok
}

// hedgeStart is an attempt a driven loop started.
type hedgeStart struct {
	at       time.Duration
	attempt  int
	hedge    int
	deadline time.Time
}

// hedgedRun is what a hedging driver saw.
type hedgedRun struct {
	steps     []hedgeStart
	decisions []Decision
	final     Decision
	// asked counts the retries the loop asked the budget for: after an attempt that reached
	// the server (Outcome.NeverReached is free), on the loop's own backoff (a retry the server
	// paced, with a wait of its own or a throttle, is not asked about).
	asked int
}

// flying is an attempt in flight on virtual time.
type flying struct {
	hedge       int
	token       int // the breaker's call number when it started
	end         time.Time
	o           Outcome
	interrupted error
}

// driveHedged runs a Loop under p as RunConcurrent would, on virtual time: attempts run
// side by side, each ending after its script's duration (or at its deadline, with the
// deadline's error); a hedge is asked for when Step.HedgeAfter passes with nothing ended;
// once the loop decides to stop, the attempts still in flight end at once, canceled. It
// fails after 200,000 steps: a bounded loop (60 s at most, attempts of at least 10 ms, each
// round at most 1 + MaxHedges attempts, a few steps each) ends well before. (20,000 was
// too few: a hedged loop of 11 ms attempts under the default 30 s Timeout takes more.)
func driveHedged(rt *rapid.T, p *Policy, src *recordingSource, callerDeadline time.Time, nested bool, sc serverScript) hedgedRun {
	l, err := NewLoop(p, t0, callerDeadline, nested)
	if err != nil {
		rt.Fatalf("NewLoop: %v", err)
	}
	var run hedgedRun
	now := t0
	var inFlight []flying
	var hedgeAt time.Time
	started := 0
	start := func(step Step) {
		i := min(started, len(sc.outcomes)-1)
		started++
		o, end := sc.outcomes[i], now.Add(sc.durations[i])
		var interrupted error
		if !step.Deadline.IsZero() && end.After(step.Deadline) {
			end, o = step.Deadline, Outcome{Err: context.DeadlineExceeded}
			if !callerDeadline.IsZero() && !end.Before(callerDeadline) {
				interrupted = context.DeadlineExceeded
			}
		}
		if step.Hedge > 0 {
			if dl := l.State().Deadline; !dl.IsZero() {
				if left := dl.Sub(now); left <= 0 || left < p.Hedge.(*hedgerScript).delay || left < p.MinAttemptTime {
					rt.Fatalf("invariant 1: a hedge at %v with %v left before the deadline", now.Sub(t0), left)
				}
			}
		}
		token := 0
		if b, ok := p.Breaker.(*grantingBreaker); ok {
			token = b.calls
		}
		inFlight = append(inFlight, flying{hedge: step.Hedge, token: token, end: end, o: o, interrupted: interrupted})
		run.steps = append(run.steps, hedgeStart{at: now.Sub(t0), attempt: step.Attempt, hedge: step.Hedge, deadline: step.Deadline})
		hedgeAt = time.Time{}
		if step.HedgeAfter > 0 {
			hedgeAt = now.Add(step.HedgeAfter)
		}
	}
	for range 200000 {
		if len(inFlight) == 0 {
			step := l.Next(now)
			switch step.Action {
			case ActionStop:
				run.final = l.Decision()
				return run
			case ActionWait:
				now = now.Add(step.Wait)
				continue
			case ActionAwait:
				rt.Fatalf("Next awaits with nothing in flight")
			}
			if step.Hedge != 0 {
				rt.Fatalf("a hedge (%d) with nothing in flight", step.Hedge)
			}
			start(step)
			continue
		}
		first := 0
		for i, f := range inFlight {
			if f.end.Before(inFlight[first].end) {
				first = i
			}
		}
		if !hedgeAt.IsZero() && hedgeAt.Before(inFlight[first].end) {
			now, hedgeAt = hedgeAt, time.Time{}
			switch step := l.Next(now); step.Action {
			case ActionAttempt:
				if step.Hedge == 0 {
					rt.Fatalf("a new attempt (%d) while one is in flight", step.Attempt)
				}
				start(step)
			case ActionAwait:
				if step.HedgeAfter > 0 {
					hedgeAt = now.Add(step.HedgeAfter)
				}
			default:
				rt.Fatalf("Next answered %v with attempts in flight", step.Action)
			}
			continue
		}
		f := inFlight[first]
		inFlight = append(inFlight[:first], inFlight[first+1:]...)
		now = f.end
		s := l.State()
		s.Now = now
		before := len(src.draws)
		d := l.DoneHedge(f.hedge, now, f.o, f.interrupted)
		run.decisions = append(run.decisions, d)
		if d.Lost {
			continue
		}
		hedgeAt = time.Time{}
		s.BreakerRetryIn = l.State().BreakerRetryIn
		checkWait(rt, p, s, f.o, d, src.draws[before:])
		if d.Retry {
			if !f.o.NeverReached && d.Reason != ReasonRetryAfter && !d.Throttled {
				run.asked++
			}
			if len(inFlight) > 0 {
				rt.Fatalf("invariant 5: a retry with %d attempts in flight", len(inFlight))
			}
			now = now.Add(d.Wait)
			continue
		}
		for _, loser := range inFlight {
			ld := l.DoneHedge(loser.hedge, now, Outcome{Err: context.Canceled}, nil)
			if !ld.Lost || ld.Retry || ld.Reason != "" {
				rt.Fatalf("invariant 5: a canceled attempt's decision %+v is not lost", ld)
			}
			if b, ok := p.Breaker.(*grantingBreaker); ok && b.results[uint64(loser.token)] == ResultFailure {
				rt.Fatalf("invariant 5: the breaker heard a canceled attempt as a failure")
			}
			run.decisions = append(run.decisions, ld)
		}
		run.final = d
		return run
	}
	rt.Fatalf("the loop ran 200,000 steps")
	return run
}

// TestLoopHedgeInvariants checks the invariants of hedging; 20 rounds of rapid's checks
// (2,000 runs, a few hundred of which hedge).
func TestLoopHedgeInvariants(t *testing.T) {
	for range 20 {
		rapid.Check(t, checkLoopHedgeInvariants)
	}
}

func checkLoopHedgeInvariants(rt *rapid.T) {
	seed := rapid.Uint64().Draw(rt, "seed")
	sc := genScript(rt)
	callerDeadline, nested := genCaller(rt)
	admits := rapid.SliceOfN(rapid.Bool(), 1, 6).Draw(rt, "breakerAdmits")
	allows := rapid.SliceOfN(rapid.Bool(), 1, 6).Draw(rt, "budgetAllows")
	withBreaker, withBudget := rapid.Bool().Draw(rt, "withBreaker"), rapid.Bool().Draw(rt, "withBudget")
	h := genHedger(rt)
	src := newRecording(seed)
	p := bounded(genPolicy(rt, src))
	// build gives a run its own scripts, so that two runs start alike.
	build := func(src *recordingSource) *Policy {
		q := *p
		q.Random = src
		q.Hedge = &hedgerScript{delay: h.delay, hedges: h.hedges, allows: h.allows}
		q.Breaker, q.Budget = nil, nil
		if withBreaker {
			q.Breaker = &grantingBreaker{admits: admits}
		}
		if withBudget {
			q.Budget = &grantCountingBudget{budgetScript: budgetScript{allows: allows}}
		}
		return &q
	}
	first := build(src)
	run := driveHedged(rt, first, src, callerDeadline, nested, sc)
	checkHedgeRun(rt, first, run)

	// 4: the same seed, the same run.
	againSrc := newRecording(seed)
	if again := driveHedged(rt, build(againSrc), againSrc, callerDeadline, nested, sc); !reflect.DeepEqual(run, again) {
		rt.Fatalf("invariant 4: one seed, two runs:\n%+v\n%+v", run, again)
	}
}

// checkHedgeRun checks invariants 1, 2, 3 and 5 on what a run under p did.
func checkHedgeRun(rt *rapid.T, p *Policy, run hedgedRun) {
	h := p.Hedge.(*hedgerScript)
	perRound := min(max(h.hedges, 0), MaxHedges)
	if h.delay <= 0 {
		perRound = 0
	}
	hedges, rounds := 0, map[int]int{}
	for _, s := range run.steps {
		if s.hedge == 0 {
			continue
		}
		hedges++
		if rounds[s.attempt]++; rounds[s.attempt] > perRound {
			rt.Fatalf("invariant 3: attempt %d has %d hedges, at most %d allowed", s.attempt, rounds[s.attempt], perRound)
		}
	}
	granted := h.asked // without a script its budget grants all
	if len(h.allows) > 0 {
		granted = 0
		for i := range h.asked {
			if h.allows[min(i, len(h.allows)-1)] {
				granted++
			}
		}
	}
	if hedges > granted || h.sent != hedges {
		rt.Fatalf("invariant 2: %d hedges, %d counted by the Hedger, %d granted by its budget", hedges, h.sent, granted)
	}
	if b, ok := p.Budget.(*grantCountingBudget); ok && run.asked+hedges > b.granted {
		rt.Fatalf("invariant 2: %d retries asked for and %d hedges, %d granted by the retry budget", run.asked, hedges, b.granted)
	}
	limit := p.maxAttempts()
	if limit != NoLimit && len(run.steps) > limit*(1+MaxHedges) {
		rt.Fatalf("invariant 3: %d requests under an attempt limit of %d", len(run.steps), limit)
	}
	records := 0
	for _, d := range append(run.decisions, run.final) {
		if d.Winner && (d.NoAttempt || d.Reason == ReasonCanceled || d.Reason == ReasonDeadlineExceeded) {
			rt.Fatalf("invariant 5: decision %+v names a winner", d)
		}
	}
	for _, d := range run.decisions {
		if !d.NoAttempt {
			records++
		}
	}
	if records != len(run.steps) {
		rt.Fatalf("invariant 5: %d attempts started, %d recorded", len(run.steps), records)
	}
}

// TestHedgeNeverPastDeadline checks invariant 1 directly: on virtual time, every hedge a
// loop sends leaves at least its delay and MinAttemptTime before the deadline (issue 35
// item 3: exactly the delay is enough).
func TestHedgeNeverPastDeadline(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		delay := msBetween(rt, "delay", 1, 500)
		timeout := msBetween(rt, "timeout", 1, 3000)
		minTime := msBetween(rt, "minAttemptTime", 0, 200)
		p := &Policy{Timeout: timeout, MinAttemptTime: minTime, Hedge: &hedgerScript{delay: delay, hedges: MaxHedges},
			MaxAttempts: NoLimit}
		l, err := NewLoop(p, t0, time.Time{}, false)
		if err != nil {
			rt.Fatal(err)
		}
		deadline := l.State().Deadline
		now := t0
		step := l.Next(now)
		for step.Action == ActionAttempt || step.Action == ActionAwait {
			if step.Hedge > 0 {
				if left := deadline.Sub(now); left <= 0 || left < delay || left < minTime {
					rt.Fatalf("a hedge at %v with %v left (delay %v, MinAttemptTime %v)", now.Sub(t0), left, delay, minTime)
				}
			}
			if step.HedgeAfter <= 0 {
				break
			}
			now = now.Add(step.HedgeAfter) // the attempts never answer
			step = l.Next(now)
		}
	})
}
