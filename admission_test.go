package retry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"
)

// fixedGate is a rate gate that lets every attempt go at a fixed time at the earliest (a
// quota back at its reset), and records what it is told.
type fixedGate struct {
	mu       sync.Mutex
	from     time.Time // no attempt before it
	next     uint64
	open     map[uint64]time.Time
	canceled int
	results  []Result
	waits    []time.Duration
}

func (g *fixedGate) Reserve(now, notBefore time.Time) (time.Time, uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	at := notBefore
	if at.Before(g.from) {
		at = g.from
	}
	g.next++
	if g.open == nil {
		g.open = map[uint64]time.Time{}
	}
	g.open[g.next] = at
	return at, g.next
}

func (g *fixedGate) Cancel(token uint64, _ time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.open[token]; !ok {
		panic(fmt.Sprintf("Cancel of reservation %d, which is not open", token))
	}
	delete(g.open, token)
	g.canceled++
}

func (g *fixedGate) Done(token uint64, _ time.Time, r Result, wait time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.open[token]; !ok {
		panic(fmt.Sprintf("Done of reservation %d, which is not open", token))
	}
	delete(g.open, token)
	g.results = append(g.results, r)
	g.waits = append(g.waits, wait)
}

func (g *fixedGate) openReservations() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.open)
}

// The rate gate (issue 32 item 2): an attempt, the first or a retry, waits at the gate for
// its time when the deadline allows; otherwise the loop stops at once with
// rate_limit_exceeds_deadline and the gate's time in RetryAfter, sending nothing.
func TestRateGate(t *testing.T) {
	t.Run("a first attempt waits for its time", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			g := &fixedGate{from: start.Add(2 * time.Second)}
			var records []Decision
			var sentAt time.Duration
			err := Do(context.Background(), &Policy{RateGate: g, OnDecision: func(_ context.Context, d Decision) { records = append(records, d) }},
				func(context.Context) error { sentAt = time.Since(start); return nil })
			if err != nil || sentAt != 2*time.Second || len(records) != 1 || records[0].GateWait != 2*time.Second ||
				len(g.results) != 1 || g.results[0] != ResultSuccess || g.openReservations() != 0 {
				t.Errorf("err %v, sent at %v, records %+v, gate %+v", err, sentAt, records, g)
			}
			if j := string(records[0].AppendJSON(nil)); !strings.Contains(j, `"gate_wait_ms":2000`) {
				t.Errorf("record %s has no gate_wait_ms", j)
			}
		})
	})
	t.Run("a time past the deadline stops at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			g := &fixedGate{from: start.Add(40 * time.Second)}
			calls := 0
			err := Do(context.Background(), &Policy{RateGate: g, MaxWait: time.Minute}, func(context.Context) error { calls++; return nil })
			var e *Error
			wait, ok := RetryAfter(err)
			if calls != 0 || !errors.As(err, &e) || e.Reason != ReasonRateLimitExceedsDeadline || e.Attempts != 0 ||
				!errors.Is(err, ErrRateLimitExceedsDeadline) || !errors.Is(err, context.DeadlineExceeded) ||
				!ok || wait != 40*time.Second || e.RetryAfterFrom() != "rate-gate" || time.Since(start) != 0 ||
				g.canceled != 1 || g.openReservations() != 0 {
				t.Errorf("calls %d, err %v, RetryAfter %v %v, after %v, gate %+v", calls, err, wait, ok, time.Since(start), g)
			}
		})
	})
	t.Run("a time past MaxWait stops at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			g := &fixedGate{from: time.Now().Add(20 * time.Second)}
			err := Do(context.Background(), &Policy{RateGate: g, MaxWait: 10 * time.Second}, func(context.Context) error { return nil })
			if !errors.Is(err, ErrRetryAfterExceedsMaxWait) || g.openReservations() != 0 {
				t.Errorf("err %v, gate %+v", err, g)
			}
		})
	})
	t.Run("a retry waits for the gate beyond its backoff", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			g := &fixedGate{}
			var records []Decision
			var sent []time.Duration
			err := Do(context.Background(), &Policy{RateGate: g, Backoff: constantBackoff(t, 100*time.Millisecond),
				OnDecision: func(_ context.Context, d Decision) { records = append(records, d) }},
				func(context.Context) error {
					sent = append(sent, time.Since(start))
					if len(sent) == 1 {
						g.from = time.Now().Add(3 * time.Second) // the quota is spent: back in 3 s
						return errors.New("reset")
					}
					return nil
				})
			if err != nil || len(sent) != 2 || sent[1] != 3*time.Second || records[0].Wait != 3*time.Second ||
				records[1].GateWait != 2900*time.Millisecond || g.openReservations() != 0 {
				t.Errorf("err %v, sent %v, records %+v", err, sent, records)
			}
		})
	})
	t.Run("a gate that holds a retry past the server's wait sets its time, not the spread", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			g := &fixedGate{}
			var sent []time.Duration
			Run(context.Background(), &Policy{RateGate: g, Backoff: constantBackoff(t, 0)}, Operation[int]{
				Attempt: func(context.Context) (int, Outcome) {
					sent = append(sent, time.Since(start))
					if len(sent) == 1 {
						g.from = time.Now().Add(1500 * time.Millisecond) // its pace: 1.5 s from now
						return 0, Outcome{Status: 429, RetryAfter: time.Second, HasRetryAfter: true}
					}
					return 0, Outcome{}
				}})
			// Alone, the spread would draw the wait from [1 s, 2 s); with the gate it is the
			// gate's 1.5 s, which spreads the loops it holds by itself (issue 33).
			if len(sent) != 2 || sent[1] != 1500*time.Millisecond || g.openReservations() != 0 {
				t.Errorf("sent at %v, gate %+v", sent, g)
			}
		})
	})
	t.Run("a retry whose time passes the deadline stops at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			g := &fixedGate{}
			calls := 0
			err := Do(context.Background(), &Policy{RateGate: g, Timeout: 5 * time.Second}, func(context.Context) error {
				calls++
				g.from = time.Now().Add(time.Minute)
				return errors.New("reset")
			})
			wait, _ := RetryAfter(err)
			if calls != 1 || !errors.Is(err, ErrRateLimitExceedsDeadline) || wait != time.Minute || g.openReservations() != 0 {
				t.Errorf("calls %d, err %v, RetryAfter %v, gate %+v", calls, err, wait, g)
			}
		})
	})
	t.Run("a breaker's refusal gives the gate's time back", func(t *testing.T) {
		g := &fixedGate{}
		b := &scriptedBreaker{answers: []bool{false}, retryIn: []time.Duration{time.Minute}}
		err := Do(context.Background(), &Policy{RateGate: g, Breaker: b}, func(context.Context) error { return nil })
		if !errors.Is(err, ErrCircuitOpen) || g.canceled != 1 || g.openReservations() != 0 {
			t.Errorf("err %v, gate %+v", err, g)
		}
	})
	t.Run("a throttle is told as such, with the server's wait", func(t *testing.T) {
		g := &fixedGate{}
		n := 0
		Run(context.Background(), &Policy{RateGate: g, RetryAfterSpread: None}, Operation[int]{Attempt: func(context.Context) (int, Outcome) {
			if n++; n == 1 {
				return 0, Outcome{Status: 429, RetryAfter: 10 * time.Millisecond, HasRetryAfter: true}
			}
			return 0, Outcome{}
		}})
		if len(g.results) != 2 || g.results[0] != ResultThrottled || g.waits[0] != 10*time.Millisecond || g.results[1] != ResultSuccess {
			t.Errorf("gate %+v", g)
		}
	})
}

// ledgerBreaker admits by a script and keeps the tokens it gave and was not told of, as a
// HALF_OPEN breaker keeps its trial calls.
type ledgerBreaker struct {
	mu      sync.Mutex
	admits  []bool
	calls   int
	next    uint64
	held    map[uint64]bool
	results []Result
}

func (b *ledgerBreaker) Allow() (uint64, bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := min(b.calls, len(b.admits)-1)
	b.calls++
	if !b.admits[i] {
		return 0, false, time.Second
	}
	b.next++
	if b.held == nil {
		b.held = map[uint64]bool{}
	}
	b.held[b.next] = true
	return b.next, true, 0
}

func (b *ledgerBreaker) Done(token uint64, r Result) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.held[token] {
		panic(fmt.Sprintf("Done of token %d, which is not held", token))
	}
	delete(b.held, token)
	b.results = append(b.results, r)
}

func (b *ledgerBreaker) outstanding() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.held)
}

// ledgerBudget counts the attempts it was told of.
type ledgerBudget struct {
	mu    sync.Mutex
	told  int
	fails int
}

func (b *ledgerBudget) AllowRetry() bool { return true }

func (b *ledgerBudget) Done(_ bool, r Result) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.told++
	if r == ResultFailure {
		b.fails++
	}
}

// errPanic is what the panicking parts of TestPanicReleasesEveryGrant raise.
var errPanic = errors.New("the operation panicked")

// Whatever unwinds the loop's stack, every grant is given back (issue 35 item 1): a panic
// in the operation, in the Classifier or in an observer, at a random point of a loop with
// a breaker, a rate gate and a retry budget, hedging or not, leaves no breaker token held
// (a HALF_OPEN breaker's trial call would stay taken), no rate gate time reserved, and
// every attempt that ran told to the budget; an attempt that panicked is told as a failure;
// the panic reaches the caller.
func TestPanicReleasesEveryGrant(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		where := rapid.SampledFrom([]string{"attempt", "classifier", "observer"}).Draw(rt, "where")
		at := rapid.IntRange(1, 4).Draw(rt, "at")
		hedged := rapid.Bool().Draw(rt, "hedged")
		admits := rapid.SliceOfN(rapid.Bool(), 1, 4).Draw(rt, "admits")
		admits = append(admits, true)
		synctest.Test(t, func(t *testing.T) {
			b := &ledgerBreaker{admits: admits}
			g := &fixedGate{}
			bud := &ledgerBudget{}
			var mu sync.Mutex
			count := map[string]int{}
			hit := func(w string) bool {
				mu.Lock()
				defer mu.Unlock()
				count[w]++
				return w == where && count[w] == at
			}
			p := &Policy{MaxAttempts: 6, Breaker: b, BreakerWait: NoLimit, RateGate: g, Budget: bud,
				Backoff: constantBackoff(t, 10*time.Millisecond),
				Classifier: func(Outcome) Class {
					if hit("classifier") {
						panic(errPanic)
					}
					return ClassUnspecified
				},
				OnDecision: func(context.Context, Decision) {
					if hit("observer") {
						panic(errPanic)
					}
				}}
			if hedged {
				p.Hedge = &hedgerScript{delay: 5 * time.Millisecond, hedges: 1}
			}
			attempt := func(ctx context.Context) (int, Outcome) {
				if hit("attempt") {
					panic(errPanic)
				}
				select { // slow enough to be hedged
				case <-time.After(20 * time.Millisecond):
				case <-ctx.Done():
				}
				return 0, Outcome{Status: 503}
			}
			var recovered any
			func() {
				defer func() { recovered = recover() }()
				RunConcurrent(context.Background(), p, Operation[int]{Attempt: attempt})
			}()
			mu.Lock()
			hits := count[where]
			mu.Unlock()
			if hits >= at && recovered != errPanic {
				t.Fatalf("the panic in the %s did not reach the caller: %v", where, recovered)
			}
			if n := b.outstanding(); n != 0 {
				t.Fatalf("a panic in the %s (call %d, hedged %v): %d breaker tokens still held", where, at, hedged, n)
			}
			if n := g.openReservations(); n != 0 {
				t.Fatalf("a panic in the %s (call %d, hedged %v): %d rate gate reservations still open", where, at, hedged, n)
			}
			if len(g.results) != len(b.results) {
				t.Fatalf("the gate heard %d results, the breaker %d", len(g.results), len(b.results))
			}
			if recovered != nil && where == "attempt" && !hedged && b.results[len(b.results)-1] != ResultFailure {
				t.Fatalf("the attempt that panicked was told as %v", b.results[len(b.results)-1])
			}
			if attempts := count["attempt"]; !hedged && bud.told != attempts {
				t.Fatalf("a panic in the %s (call %d): the budget heard of %d attempts, %d ran", where, at, bud.told, attempts)
			}
		})
	})
}
