package retry

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The default retry budget of the zero Policy (issue 21 item 1), one test per rule: a single
// run keeps its attempts; the budget refuses only when failures are widespread, at once, with
// retry_budget_exhausted, counted in the metrics; successes refill it; a retry is counted
// when it is decided; an attempt that never reached the server costs nothing; the backoff
// does not disappear when it runs dry; one budget per Policy value; NoBudget turns it off.

var errDown = errors.New("service down")

// failing returns an operation that fails every attempt and counts them in n.
func failing(n *int) func(context.Context) error {
	return func(context.Context) error { *n++; return errDown }
}

// A single run, as the command line makes, keeps every attempt of its policy: 3 by default,
// 50 when it asks for 50 (the budget holds the retries of one loop of its policy: a new
// user's MaxAttempts 50 made 21 attempts), and without an attempt limit as many as its
// Timeout allows.
func TestDefaultBudgetSingleRunKeepsAttempts(t *testing.T) {
	for _, attempts := range []int{0, 5, 21, 50, 1000} {
		n := 0
		err := Do(context.Background(), &Policy{MaxAttempts: attempts, Backoff: constantBackoff(t, 0)}, failing(&n))
		want := attempts
		if want == 0 {
			want = DefaultMaxAttempts
		}
		if n != want || !errors.Is(err, ErrAttemptsExhausted) {
			t.Errorf("MaxAttempts %d: %d attempts, %v; want %d, attempts_exhausted", attempts, n, err, want)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		n := 0
		err := Do(context.Background(), &Policy{MaxAttempts: NoLimit, Timeout: time.Second, Backoff: constantBackoff(t, 10*time.Millisecond)}, failing(&n))
		if n < 90 || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("NoLimit attempts for 1 s, 10 ms apart: %d attempts, %v; want about 100, a deadline stop", n, err)
		}
	})
}

// With every call failing, the calls sharing a Policy spend its 20 retries (10 calls of 3
// attempts) and then each call stops after its first attempt, at once, with
// retry_budget_exhausted; the stop is counted by Metrics, and its error says how long the
// refused retry would have waited, as RetryAfter from "backoff".
func TestDefaultBudgetRefusesWhenAllFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		metrics := new(Metrics)
		p := &Policy{Backoff: constantBackoff(t, 100*time.Millisecond), OnDecision: metrics.Observe}
		for call := 1; call <= 13; call++ {
			n := 0
			start := time.Now()
			err := Do(context.Background(), p, failing(&n))
			took := time.Since(start)
			if call <= 10 {
				if n != 3 || !errors.Is(err, ErrAttemptsExhausted) || took != 200*time.Millisecond {
					t.Fatalf("call %d: %d attempts, %v after %v; want 3 attempts, attempts_exhausted after 200ms", call, n, err, took)
				}
				continue
			}
			var e *Error
			if n != 1 || !errors.As(err, &e) || e.Reason != ReasonRetryBudgetExhausted || took != 0 || !errors.Is(err, errDown) {
				t.Fatalf("call %d: %d attempts, %v after %v; want 1 attempt, retry_budget_exhausted at once", call, n, err, took)
			}
			if wait, ok := e.RetryAfter(); wait != 100*time.Millisecond || !ok || e.RetryAfterFrom() != "backoff" {
				t.Errorf("call %d: RetryAfter %v, %v from %q; want the refused retry's 100ms from backoff", call, wait, ok, e.RetryAfterFrom())
			}
		}
		s := metrics.Snapshot()
		if s.Stops[ReasonRetryBudgetExhausted] != 3 || s.Stops[ReasonAttemptsExhausted] != 10 || s.Retries != 20 || s.Attempts != 33 {
			t.Errorf("metrics %+v; want 3 retry_budget_exhausted and 10 attempts_exhausted stops, 20 retries, 33 attempts", s)
		}
	})
}

// drain spends p's default budget with failing calls until one is refused.
func drain(t *testing.T, p *Policy) {
	t.Helper()
	for range 30 {
		n := 0
		if err := Do(context.Background(), p, failing(&n)); errors.Is(err, ErrRetryBudgetExhausted) {
			return
		}
	}
	t.Fatal("30 failing calls did not drain the budget")
}

// Successes refill it: each successful attempt gives a retry back (aws-sdk-go-v2#3550 was a
// quota that never refilled). After one success a failing call gets one retry; after twenty
// more, ten failing calls get all of theirs again.
func TestDefaultBudgetRefilledBySuccesses(t *testing.T) {
	p := &Policy{Backoff: constantBackoff(t, 0)}
	drain(t, p)
	succeed := func(times int) {
		for range times {
			if err := Do(context.Background(), p, func(context.Context) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
	}
	succeed(1)
	n := 0
	if err := Do(context.Background(), p, failing(&n)); n != 2 || !errors.Is(err, ErrRetryBudgetExhausted) {
		t.Errorf("after 1 success: %d attempts, %v; want 2 (one retry back), retry_budget_exhausted", n, err)
	}
	succeed(20)
	for call := range 10 {
		n := 0
		if err := Do(context.Background(), p, failing(&n)); n != 3 || !errors.Is(err, ErrAttemptsExhausted) {
			t.Fatalf("after 20 more successes, call %d: %d attempts, %v; want 3, attempts_exhausted", call, n, err)
		}
	}
}

// A retry is counted when it is decided, before its wait (envoyproxy/envoy#30205 counted
// retries when sent, so retries waiting in backoff overshot the budget): 20 loops fail at
// once and wait a second for their retries; 20 retries are granted at t=0 (the budget's 20;
// 40 first attempts in the last second allow no more), the other 20 loops stop then, and
// exactly 20 retries reach the server at t=1s.
func TestDefaultBudgetCountedWhenDecided(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &Policy{MaxAttempts: 2, Backoff: constantBackoff(t, time.Second)}
		start := time.Now()
		var mu sync.Mutex
		var attempts []time.Duration
		var refusedAt []time.Duration
		var wg sync.WaitGroup
		for range 40 {
			wg.Go(func() {
				err := Do(context.Background(), p, func(context.Context) error {
					mu.Lock()
					attempts = append(attempts, time.Since(start))
					mu.Unlock()
					return errDown
				})
				if errors.Is(err, ErrRetryBudgetExhausted) {
					mu.Lock()
					refusedAt = append(refusedAt, time.Since(start))
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		retries := 0
		for _, at := range attempts {
			if at == time.Second {
				retries++
			}
		}
		if len(refusedAt) != 20 || retries != 20 || len(attempts) != 60 {
			t.Fatalf("%d refused, %d retries at 1s, %d attempts; want 20 refused, 20 retries, 60 attempts", len(refusedAt), retries, len(attempts))
		}
		for _, at := range refusedAt {
			if at != 0 {
				t.Errorf("a loop was refused at %v, want at 0s: when its retry was decided", at)
			}
		}
	})
}

// It refuses retries only when failures are widespread: 10,000 calls sharing a Policy, 10
// a second (so that the budget holds its 20 retries, no more), 10% of them failing every
// attempt (or 10% of all attempts failing at random), get every retry; with half the calls
// failing every attempt, it refuses some.
func TestDefaultBudgetTenPercentFailing(t *testing.T) {
	for _, tc := range []struct {
		name       string
		share      float64
		perAttempt bool // each attempt fails with the share, rather than each call
		refusals   bool
	}{
		{"10% of calls fail every attempt", 0.1, false, false},
		{"10% of attempts fail", 0.1, true, false},
		{"50% of calls fail every attempt", 0.5, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				random := rand.New(rand.NewPCG(21, 1))
				metrics := new(Metrics)
				p := &Policy{Backoff: constantBackoff(t, 0), OnDecision: metrics.Observe}
				for range 10_000 {
					fails := random.Float64() < tc.share
					_ = Do(context.Background(), p, func(context.Context) error {
						time.Sleep(100 * time.Millisecond)
						if tc.perAttempt {
							fails = random.Float64() < tc.share
						}
						if fails {
							return errDown
						}
						return nil
					})
				}
				refused := metrics.Snapshot().Stops[ReasonRetryBudgetExhausted]
				if refused > 0 != tc.refusals {
					t.Errorf("%d retries refused (%d made); want refusals %v", refused, metrics.Snapshot().Retries, tc.refusals)
				}
			})
		})
	}
}

// The same with 256 and 1024 goroutines sharing one Policy, each making 40 calls with
// the default backoff, 10% of the calls failing every attempt: no retry is refused, though
// dozens to hundreds of calls fail at the same moment (the budget holds a tenth of the
// attempts of the last second).
func TestDefaultBudgetTenPercentFailingConcurrent(t *testing.T) {
	for _, goroutines := range []int{256, 1024} {
		t.Run(fmt.Sprint(goroutines), func(t *testing.T) { tenPercentConcurrent(t, goroutines) })
	}
}

func tenPercentConcurrent(t *testing.T, goroutines int) {
	synctest.Test(t, func(t *testing.T) {
		metrics := new(Metrics)
		p := &Policy{OnDecision: metrics.Observe}
		var calls atomic.Int64
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				random := rand.New(rand.NewPCG(uint64(g), 21))
				for range 40 {
					fails := random.Float64() < 0.1
					_ = Do(context.Background(), p, func(context.Context) error {
						time.Sleep(20 * time.Millisecond)
						if calls.Add(1); fails {
							return errDown
						}
						return nil
					})
				}
			})
		}
		wg.Wait()
		s := metrics.Snapshot()
		if s.Stops[ReasonRetryBudgetExhausted] != 0 || s.Retries == 0 {
			t.Errorf("%d retries refused, %d made; want none refused", s.Stops[ReasonRetryBudgetExhausted], s.Retries)
		}
	})
}

// An attempt that never reached the server (a refused dial, REFUSED_STREAM, a proxy's 503
// to CONNECT) costs nothing: 50 loops whose attempts all never reached it each make their 3
// attempts, and the budget is still full for a loop that does reach a failing server. A
// loop whose first attempt never reached the server and whose second failed there is
// charged the one retry after the second only.
func TestDefaultBudgetNeverReachedCostsNothing(t *testing.T) {
	p := &Policy{Backoff: constantBackoff(t, 0)}
	run := func(neverReached func(attempt int) bool) (int, error) {
		n := 0
		_, _, err := Run(context.Background(), p, Operation[struct{}]{Attempt: func(context.Context) (struct{}, Outcome) {
			n++
			return struct{}{}, Outcome{Err: errDown, NeverReached: neverReached(n)}
		}})
		return n, err
	}
	for i := range 50 {
		if n, err := run(func(int) bool { return true }); n != 3 || !errors.Is(err, ErrAttemptsExhausted) {
			t.Fatalf("never-reached loop %d: %d attempts, %v; want 3, attempts_exhausted", i, n, err)
		}
	}
	if got := defaultBudgets.Get(p, false); got != nil && got.Retries(time.Now()) != 20 {
		t.Fatalf("budget %v retries after 50 loops that never reached the server, want 20", got.Retries(time.Now()))
	}
	// 20 retries: 20 loops that charge 1 each (attempt 2 failed at the server) drain it.
	for i := range 20 {
		if n, err := run(func(a int) bool { return a == 1 }); n != 3 || !errors.Is(err, ErrAttemptsExhausted) {
			t.Fatalf("mixed loop %d: %d attempts, %v; want 3, attempts_exhausted", i, n, err)
		}
	}
	if n, err := run(func(a int) bool { return a == 1 }); n != 2 || !errors.Is(err, ErrRetryBudgetExhausted) {
		t.Errorf("the 21st mixed loop: %d attempts, %v; want 2, retry_budget_exhausted (the free retry, then none)", n, err)
	}
}

// NoBudget turns it off: 20 failing calls sharing a Policy each make their 3 attempts.
func TestNoBudgetTurnsItOff(t *testing.T) {
	p := &Policy{Backoff: constantBackoff(t, 0), Budget: NoBudget}
	for call := range 20 {
		n := 0
		if err := Do(context.Background(), p, failing(&n)); n != 3 || !errors.Is(err, ErrAttemptsExhausted) {
			t.Fatalf("call %d: %d attempts, %v; want 3, attempts_exhausted", call, n, err)
		}
	}
}

// One budget per Policy value: calls sharing a *Policy share it, a copy of a Policy is a new
// value with a full budget, and a budget the copy drains leaves the original's alone.
func TestDefaultBudgetPerPolicyValue(t *testing.T) {
	p := &Policy{Backoff: constantBackoff(t, 0)}
	drain(t, p)
	copied := *p
	for call := range 10 {
		n := 0
		if err := Do(context.Background(), &copied, failing(&n)); n != 3 {
			t.Fatalf("copy, call %d: %d attempts, %v; want 3 (a full budget of its own)", call, n, err)
		}
	}
	n := 0
	if err := Do(context.Background(), p, failing(&n)); n != 1 || !errors.Is(err, ErrRetryBudgetExhausted) {
		t.Errorf("original: %d attempts, %v; want 1, still drained", n, err)
	}
}

// The backoff does not disappear when the budget runs dry (aws-sdk-go-v2#3413: at 100%
// failures the quota ran dry, every call failed at once, and 256 goroutines calling in a loop
// sent requests back to back). Every retry the budget allows waits its whole backoff, and a
// refused loop, which stops at once, hands the caller the backoff's wait as RetryAfter: 256
// goroutines that call again after it send no more requests in 5 s of 100% failures than
// without a budget. A caller that calls again at once would send several times as many.
func TestDefaultBudgetKeepsTheBackoff(t *testing.T) {
	load := func(p *Policy, honour bool) int64 {
		var requests atomic.Int64
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			var wg sync.WaitGroup
			for range 256 {
				wg.Go(func() {
					for time.Since(start) < 5*time.Second {
						err := Do(context.Background(), p, func(context.Context) error {
							requests.Add(1)
							time.Sleep(20 * time.Millisecond)
							return errDown
						})
						if wait, ok := RetryAfter(err); ok && honour {
							time.Sleep(wait)
						}
					}
				})
			}
			wg.Wait()
		})
		return requests.Load()
	}
	without := load(&Policy{Budget: NoBudget}, true)
	honoured := load(&Policy{}, true)
	ignored := load(&Policy{}, false)
	t.Logf("requests in 5 s from 256 goroutines at 100%% failures: no budget %d; default budget, RetryAfter honoured %d, ignored %d",
		without, honoured, ignored)
	if float64(honoured) > 1.1*float64(without) {
		t.Errorf("default budget with RetryAfter honoured: %d requests, no budget %d: want at most 10%% more", honoured, without)
	}

	// Each retry that runs waits the whole of its backoff, dry budget or not.
	synctest.Test(t, func(t *testing.T) {
		var waits []time.Duration
		p := &Policy{MaxAttempts: 4, Backoff: constantBackoff(t, 300*time.Millisecond),
			OnDecision: func(_ context.Context, d Decision) {
				if d.Retry {
					waits = append(waits, d.Wait)
				}
			}}
		var starts []time.Duration
		for range 6 {
			start := time.Now()
			_ = Do(context.Background(), p, func(context.Context) error { starts = append(starts, time.Since(start)); return errDown })
		}
		for i, w := range waits {
			if w != 300*time.Millisecond {
				t.Errorf("retry %d waited %v, want its backoff 300ms", i, w)
			}
		}
		for i, at := range starts {
			if at != 0 && at%(300*time.Millisecond) != 0 {
				t.Errorf("attempt %d started %v into its call, want a multiple of the 300ms backoff", i, at)
			}
		}
	})
}
