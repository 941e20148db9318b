package retry

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

// hedgerScript is a Hedger with a fixed delay whose own budget answers by a script (the
// last answer repeating; none: always allow). It keeps what the loop told it. Safe for
// concurrent use, as a Hedger must be.
type hedgerScript struct {
	delay  time.Duration
	hedges int
	allows []bool

	mu         sync.Mutex
	attempts   int
	asked      int
	sent       int
	latencies  []time.Duration
	superseded []bool
}

func (h *hedgerScript) Attempt() (time.Duration, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.attempts++
	return h.delay, h.hedges
}

func (h *hedgerScript) AllowHedge() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked++
	if len(h.allows) == 0 {
		return true
	}
	return h.allows[min(h.asked-1, len(h.allows)-1)]
}

func (h *hedgerScript) Hedged() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sent++
}

func (h *hedgerScript) Latency(d time.Duration, superseded bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.latencies = append(h.latencies, d)
	h.superseded = append(h.superseded, superseded)
}

// breakerLog admits every call and keeps the results it is told, by token.
type breakerLog struct {
	mu      sync.Mutex
	next    uint64
	refuse  bool
	results map[uint64]Result
}

func (b *breakerLog) Allow() (uint64, bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refuse {
		return 0, false, time.Second
	}
	b.next++
	return b.next, true, 0
}

func (b *breakerLog) Done(token uint64, r Result) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.results == nil {
		b.results = map[uint64]Result{}
	}
	b.results[token] = r
}

// decisionLog keeps every decision a loop reports.
type decisionLog struct {
	mu sync.Mutex
	ds []Decision
}

func (l *decisionLog) observe(_ context.Context, d Decision) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ds = append(l.ds, d)
}

// sleepOrDone sleeps d, or until ctx ends, and returns ctx's error then.
func sleepOrDone(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// timedOp answers each attempt after the time its script gives for (attempt, hedge), with
// the outcome given for it; a missing entry answers 200 at once.
type timedOp struct {
	mu    sync.Mutex
	runs  map[[2]int]time.Duration
	outs  map[[2]int]Outcome
	round int
	seen  [][2]int
}

func (op *timedOp) attempt(ctx context.Context) (int, Outcome) {
	attempt, hedge := HedgeOf(ctx)
	op.mu.Lock()
	if hedge == 0 {
		op.round++
		attempt = op.round
	}
	key := [2]int{attempt, hedge}
	op.seen = append(op.seen, key)
	run, out := op.runs[key], op.outs[key]
	op.mu.Unlock()
	if err := sleepOrDone(ctx, run); err != nil {
		return 0, Outcome{Err: err}
	}
	return attempt*10 + hedge, out
}

// runHedged runs op under p with a decision log and returns the value, the decisions and
// the error.
func runHedged(t *testing.T, p *Policy, op *timedOp) (int, []Decision, error) {
	t.Helper()
	var log decisionLog
	p.OnDecision = log.observe
	v, final, err := RunConcurrent(context.Background(), p, Operation[int]{Attempt: op.attempt})
	final.End()
	return v, log.ds, err
}

// TestHedgeWins: a slow attempt is hedged after the delay; the hedge's answer is used; the
// attempt is canceled, recorded as lost before the loop's decision, and its cancellation
// reaches the breaker as ignored, not as a failure.
func TestHedgeWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hedgerScript{delay: 100 * time.Millisecond, hedges: 1}
		b := &breakerLog{}
		var m Metrics
		p := &Policy{Hedge: h, Breaker: b}
		op := &timedOp{runs: map[[2]int]time.Duration{{1, 0}: 5 * time.Second, {1, 1}: 10 * time.Millisecond}}
		start := time.Now()
		var log decisionLog
		p.OnDecision = Observers(log.observe, m.Observe)
		v, final, err := RunConcurrent(context.Background(), p, Operation[int]{Attempt: op.attempt})
		final.End()
		if err != nil || v != 11 {
			t.Fatalf("RunConcurrent = %d, %v; want the hedge's 11, nil", v, err)
		}
		if got := time.Since(start); got != 110*time.Millisecond {
			t.Errorf("took %v, want 110ms (hedged at 100ms, answered 10ms later)", got)
		}
		ds := log.ds
		if len(ds) != 2 {
			t.Fatalf("%d decisions, want 2 (the lost attempt, then the loop's): %+v", len(ds), ds)
		}
		lost, won := ds[0], ds[1]
		if !lost.Lost || lost.Hedge || lost.Winner || lost.Attempt != 1 || !errors.Is(lost.Err, context.Canceled) {
			t.Errorf("first decision %+v, want attempt 1 lost, canceled", lost)
		}
		if won.Lost || !won.Hedge || !won.Winner || won.Reason != ReasonSuccess || won.Attempt != 1 || won.AttemptDuration != 10*time.Millisecond {
			t.Errorf("final decision %+v, want attempt 1's hedge, the winner, success after 10ms", won)
		}
		if want := map[uint64]Result{1: ResultIgnored, 2: ResultSuccess}; len(b.results) != 2 || b.results[1] != want[1] || b.results[2] != want[2] {
			t.Errorf("breaker told %v, want %v (the canceled attempt ignored)", b.results, want)
		}
		if h.sent != 1 || len(h.latencies) != 1 || !h.superseded[0] || h.latencies[0] != 110*time.Millisecond {
			t.Errorf("hedger: %d sent, latencies %v superseded %v; want 1 sent, the attempt superseded after 110ms", h.sent, h.latencies, h.superseded)
		}
		s := m.Snapshot()
		if s.Attempts != 2 || s.Hedges != 1 || s.HedgesWon != 1 || s.Stops[ReasonSuccess] != 1 || len(s.Stops) != 1 {
			t.Errorf("metrics %+v, want 2 attempts, 1 hedge won, 1 stop", s)
		}
	})
}

// TestHedgeLoses: the attempt answers after its hedge was sent, before the hedge: the hedge
// is the one canceled.
func TestHedgeLoses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hedgerScript{delay: 100 * time.Millisecond, hedges: 1}
		op := &timedOp{runs: map[[2]int]time.Duration{{1, 0}: 150 * time.Millisecond, {1, 1}: time.Second}}
		v, ds, err := runHedged(t, &Policy{Hedge: h}, op)
		if err != nil || v != 10 {
			t.Fatalf("RunConcurrent = %d, %v; want the attempt's 10, nil", v, err)
		}
		if len(ds) != 2 || !ds[0].Lost || !ds[0].Hedge || ds[1].Hedge || !ds[1].Winner {
			t.Fatalf("decisions %+v, want the hedge lost, then the attempt the winner", ds)
		}
		if len(h.latencies) != 1 || h.superseded[0] || h.latencies[0] != 150*time.Millisecond {
			t.Errorf("latencies %v (superseded %v), want the attempt's 150ms", h.latencies, h.superseded)
		}
	})
}

// TestNoHedgeWhenFast: an attempt that answers within the delay is not hedged, and its
// record has none of the hedging fields.
func TestNoHedgeWhenFast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hedgerScript{delay: 100 * time.Millisecond, hedges: 1}
		op := &timedOp{runs: map[[2]int]time.Duration{{1, 0}: 99 * time.Millisecond}}
		_, ds, err := runHedged(t, &Policy{Hedge: h}, op)
		if err != nil || len(ds) != 1 || ds[0].Hedge || ds[0].Winner || ds[0].Lost || h.sent != 0 {
			t.Fatalf("err %v, decisions %+v, %d hedges; want one plain success", err, ds, h.sent)
		}
		for a := range ds[0].Fields() {
			if a.Key == keyHedge || a.Key == keyWinner || a.Key == keyHedgeRefused {
				t.Errorf("the record of a round without hedges has %s", a.Key)
			}
		}
	})
}

// TestHedgeFailureWaitsForTheOther: an attempt that fails while its hedge is in flight
// does not decide; the round's last failure does, and the loop retries.
func TestHedgeFailureWaitsForTheOther(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hedgerScript{delay: 100 * time.Millisecond, hedges: 1}
		op := &timedOp{
			runs: map[[2]int]time.Duration{{1, 0}: 150 * time.Millisecond, {1, 1}: 100 * time.Millisecond},
			outs: map[[2]int]Outcome{{1, 0}: {Status: 503}, {1, 1}: {Status: 502}},
		}
		v, ds, err := runHedged(t, &Policy{Hedge: h, Backoff: constantBackoff(t, 0)}, op)
		if err != nil || v != 20 {
			t.Fatalf("RunConcurrent = %d, %v; want the retry's 20, nil", v, err)
		}
		if len(ds) != 3 {
			t.Fatalf("%d decisions, want 3: %+v", len(ds), ds)
		}
		if !ds[0].Lost || ds[0].Status != 503 || ds[0].Hedge {
			t.Errorf("first %+v, want the attempt's 503, lost", ds[0])
		}
		if !ds[1].Retry || ds[1].Status != 502 || !ds[1].Hedge || !ds[1].Winner {
			t.Errorf("second %+v, want the hedge's 502 deciding a retry", ds[1])
		}
		if ds[2].Attempt != 2 || ds[2].Reason != ReasonSuccess || ds[2].Winner {
			t.Errorf("third %+v, want attempt 2's plain success", ds[2])
		}
	})
}

// TestHedgeRefusals: each refusal stops the round's hedging and is said by the next record.
func TestHedgeRefusals(t *testing.T) {
	slow := map[[2]int]time.Duration{{1, 0}: 300 * time.Millisecond, {2, 0}: 300 * time.Millisecond}
	for _, c := range []struct {
		name   string
		policy func(h *hedgerScript) *Policy
		outs   map[[2]int]Outcome
		want   HedgeRefusal
		record int // the decision that says it
	}{
		{"hedge budget", func(h *hedgerScript) *Policy {
			h.allows = []bool{false}
			return &Policy{Hedge: h}
		}, nil, HedgeRefusedHedgeBudget, 0},
		{"retry budget", func(h *hedgerScript) *Policy {
			return &Policy{Hedge: h, Budget: &budgetScript{allows: []bool{false}}}
		}, nil, HedgeRefusedRetryBudget, 0},
		{"breaker", func(h *hedgerScript) *Policy {
			return &Policy{Hedge: h, Breaker: &breakerScript{admits: []bool{true, false}, retryIn: []time.Duration{0, time.Second}}}
		}, nil, HedgeRefusedCircuitOpen, 0},
		{"deadline", func(h *hedgerScript) *Policy {
			return &Policy{Hedge: h, Timeout: 150 * time.Millisecond}
		}, nil, HedgeRefusedDeadline, 0},
		{"retry-after", func(h *hedgerScript) *Policy {
			return &Policy{Hedge: h, Backoff: constantBackoff(t, 0)}
		}, map[[2]int]Outcome{{1, 0}: {Status: 503, RetryAfter: 0, HasRetryAfter: true}}, HedgeRefusedRetryAfter, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := &hedgerScript{delay: 100 * time.Millisecond, hedges: 1}
				p := c.policy(h)
				runs := slow
				if c.want == HedgeRefusedRetryAfter {
					runs = map[[2]int]time.Duration{{1, 0}: 10 * time.Millisecond, {2, 0}: 300 * time.Millisecond}
				}
				_, ds, _ := runHedged(t, p, &timedOp{runs: runs, outs: c.outs})
				if h.sent != 0 {
					t.Errorf("%d hedges sent, want 0", h.sent)
				}
				for i, d := range ds {
					want := HedgeRefusal(0)
					if i == c.record {
						want = c.want
					}
					if d.HedgeRefused != want || d.Hedge {
						t.Errorf("decision %d: %+v, want hedge_refused %q", i, d, want)
					}
				}
				if len(ds) <= c.record {
					t.Fatalf("only %d decisions", len(ds))
				}
				if v, ok := recordValue(ds[c.record], keyHedgeRefused); !ok || v != c.want.String() {
					t.Errorf("record's hedge_refused %q, want %q", v, c.want)
				}
			})
		})
	}
}

// recordValue returns the string of key in d's record.
func recordValue(d Decision, key string) (string, bool) {
	for a := range d.Fields() {
		if a.Key == key {
			return a.Value.String(), true
		}
	}
	return "", false
}

// TestHedgeLostRecord: a lost attempt's record has no decision and no reason, and says
// winner false; the winner's says winner true, and a hedge's says hedge.
func TestHedgeLostRecord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hedgerScript{delay: 100 * time.Millisecond, hedges: 1}
		op := &timedOp{runs: map[[2]int]time.Duration{{1, 0}: time.Second, {1, 1}: 10 * time.Millisecond}}
		_, ds, _ := runHedged(t, &Policy{Hedge: h}, op)
		lost, won := string(ds[0].AppendJSON(nil)), string(ds[1].AppendJSON(nil))
		if want := `{"attempt":1,"error":"context canceled","elapsed_ms":110,"remaining_ms":29890,"outcome":"failure","winner":false}`; lost != want {
			t.Errorf("lost record\n %s\nwant\n %s", lost, want)
		}
		if want := `{"attempt":1,"elapsed_ms":110,"remaining_ms":29890,"decision":"stop","reason":"success","outcome":"success","hedge":true,"winner":true}`; won != want {
			t.Errorf("winner's record\n %s\nwant\n %s", won, want)
		}
	})
}

// TestRunDoesNotHedge: Run, whose operation did not declare itself safe to run
// concurrently, never hedges, and never asks the Hedger.
func TestRunDoesNotHedge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hedgerScript{delay: time.Millisecond, hedges: 1}
		op := &timedOp{runs: map[[2]int]time.Duration{{1, 0}: time.Second}}
		_, final, err := Run(context.Background(), &Policy{Hedge: h}, Operation[int]{Attempt: op.attempt})
		final.End()
		if err != nil || len(op.seen) != 1 || h.attempts != 0 {
			t.Fatalf("err %v, attempts %v, hedger asked %d times; want one attempt, no hedger", err, op.seen, h.attempts)
		}
	})
}

// TestHedgePanicReachesCaller: a panic in a hedge is raised on the caller's goroutine once
// the other attempt has returned.
func TestHedgePanicReachesCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hedgerScript{delay: 10 * time.Millisecond, hedges: 1}
		defer func() {
			if v := recover(); v != "boom" {
				t.Errorf("recovered %v, want boom", v)
			}
		}()
		RunConcurrent(context.Background(), &Policy{Hedge: h}, Operation[int]{Attempt: func(ctx context.Context) (int, Outcome) {
			if _, hedge := HedgeOf(ctx); hedge > 0 {
				panic("boom")
			}
			return 0, Outcome{Err: sleepOrDone(ctx, time.Second)}
		}})
		t.Errorf("RunConcurrent returned")
	})
}

// TestRunConcurrentLeavesNothing: on the real clock, once RunConcurrent returns, neither
// the canceled attempt's goroutine nor the hedge's timer is left.
func TestRunConcurrentLeavesNothing(t *testing.T) {
	defer goleak.VerifyNone(t)
	for range 20 {
		h := &hedgerScript{delay: time.Millisecond, hedges: 2}
		v, final, err := RunConcurrent(context.Background(), &Policy{Hedge: h}, Operation[int]{Attempt: func(ctx context.Context) (int, Outcome) {
			if _, hedge := HedgeOf(ctx); hedge == 2 {
				return 2, Outcome{}
			}
			<-ctx.Done()
			return 0, Outcome{Err: ctx.Err()}
		}})
		final.End()
		if err != nil || v != 2 {
			t.Fatalf("RunConcurrent = %d, %v; want the second hedge's 2", v, err)
		}
	}
}

// TestHedgeAtTheDeadlineBoundary: a hedge is refused for the deadline only when less time
// than its delay is left (issue 35 item 3): with a delay of 60 ms, a hedge due with exactly
// 60 ms left is sent, and one due with a nanosecond more; one due with a nanosecond less is
// refused ("deadline").
func TestHedgeAtTheDeadlineBoundary(t *testing.T) {
	const delay = 60 * time.Millisecond
	for _, c := range []struct {
		left    time.Duration // when the hedge is due
		sent    int
		refused HedgeRefusal
	}{
		{delay - time.Nanosecond, 0, HedgeRefusedDeadline},
		{delay, 1, 0},
		{delay + time.Nanosecond, 1, 0},
	} {
		t.Run(c.left.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := &hedgerScript{delay: delay, hedges: 1}
				op := &timedOp{runs: map[[2]int]time.Duration{{1, 0}: time.Hour, {1, 1}: time.Hour}}
				_, ds, _ := runHedged(t, &Policy{Hedge: h, Timeout: delay + c.left}, op)
				if h.sent != c.sent || len(op.seen) != 1+c.sent {
					t.Errorf("%d hedges sent, attempts %v; want %d hedges", h.sent, op.seen, c.sent)
				}
				if len(ds) == 0 || ds[0].HedgeRefused != c.refused {
					t.Errorf("decisions %+v, want the first to say hedge_refused %q", ds, c.refused)
				}
			})
		})
	}
}

// TestHedgedRoundWithoutWinner: a hedged round that the caller's context or the deadline
// ended has no winner (issue 35 item 3): its decision says "winner":false, as the record of
// the attempt canceled beside it does; before, the decision said "winner":true with reason
// canceled. A stop decided without an attempt after a hedged round says no winner either.
func TestHedgedRoundWithoutWinner(t *testing.T) {
	slow := map[[2]int]time.Duration{{1, 0}: time.Hour, {1, 1}: time.Hour}
	for _, c := range []struct {
		name     string
		timeout  time.Duration // the policy's
		cancelAt time.Duration // the caller cancels then; 0: never
		ctxLimit time.Duration // the caller's context deadline; 0: none
		runs     map[[2]int]time.Duration
		outs     map[[2]int]Outcome
		want     Reason
		records  int // the loop's decision is the last of them
	}{
		{"caller canceled", 0, 150 * time.Millisecond, 0, slow, nil, ReasonCanceled, 2},
		{"policy's deadline", 250 * time.Millisecond, 0, 0, slow, nil, ReasonDeadlineExceeded, 2},
		{"caller's deadline", 0, 0, 250 * time.Millisecond, slow, nil, ReasonDeadlineExceeded, 2},
		{"caller canceled during the wait after a hedged round", 0, 500 * time.Millisecond, 0,
			map[[2]int]time.Duration{{1, 0}: 150 * time.Millisecond, {1, 1}: 100 * time.Millisecond},
			map[[2]int]Outcome{{1, 0}: {Status: 503}, {1, 1}: {Status: 503}}, ReasonCanceled, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				if c.cancelAt > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithCancel(ctx)
					defer time.AfterFunc(c.cancelAt, cancel).Stop()
				}
				if c.ctxLimit > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, c.ctxLimit)
					defer cancel()
				}
				var log decisionLog
				h := &hedgerScript{delay: 100 * time.Millisecond, hedges: 1}
				p := &Policy{Hedge: h, Timeout: c.timeout, Backoff: constantBackoff(t, time.Second),
					OnDecision: log.observe}
				op := &timedOp{runs: c.runs, outs: c.outs}
				_, final, err := RunConcurrent(ctx, p, Operation[int]{Attempt: op.attempt})
				final.End()
				ds := log.ds
				if h.sent != 1 || len(ds) != c.records {
					t.Fatalf("%d hedges, %d decisions %+v (%v); want 1 hedge, %d decisions", h.sent, len(ds), ds, err, c.records)
				}
				d := ds[len(ds)-1]
				if d.Reason != c.want || d.Winner || d.Lost {
					t.Errorf("the loop's decision %+v, want %s without a winner", d, c.want)
				}
				v, ok := recordValue(d, keyWinner)
				if d.NoAttempt {
					if ok {
						t.Errorf("the record of a stop without an attempt says winner %s, want no winner field", v)
					}
				} else if !ok || v != "false" {
					t.Errorf("the loop's record says winner %q (present %v), want false", v, ok)
				}
				for _, d := range ds[:len(ds)-1] {
					if v, _ := recordValue(d, keyWinner); d.Retry && v != "true" || !d.Retry && v != "false" {
						t.Errorf("record %s: winner %q", d.AppendJSON(nil), v)
					}
				}
				var m Metrics
				for _, d := range ds {
					m.Observe(ctx, d)
				}
				if s := m.Snapshot(); s.HedgesWon != 0 {
					t.Errorf("metrics count %d hedges won, want 0", s.HedgesWon)
				}
			})
		})
	}
}
