package breaker_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
)

// openWithLeft returns a breaker of cfg that is OPEN with left of its open time to go:
// ConsecutiveFailures failed calls open it, then the clock moves on.
func openWithLeft(t *testing.T, cfg breaker.Config, left time.Duration) *breaker.Breaker {
	t.Helper()
	b, err := breaker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for range max(cfg.ConsecutiveFailures, breaker.DefaultConsecutiveFailures) {
		_ = b.Execute(context.Background(), func(context.Context) error { return errDown })
	}
	if b.State() != breaker.StateOpen {
		t.Fatalf("state %v after the failures, want OPEN", b.State())
	}
	time.Sleep(breaker.DefaultOpenTimeout - left)
	return b
}

// loopResult is what one of the concurrent loops saw.
type loopResult struct {
	took     time.Duration
	err      error
	attempts int
}

// runConcurrent runs n retry.Do loops under p at once, each calling op, and returns what
// each saw.
func runConcurrent(p *retry.Policy, n int, op func(context.Context) error) []loopResult {
	results := make([]loopResult, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range results {
		wg.Go(func() {
			calls := 0
			err := retry.Do(context.Background(), p, func(ctx context.Context) error { calls++; return op(ctx) })
			results[i] = loopResult{took: time.Since(start), err: err, attempts: calls}
		})
	}
	wg.Wait()
	return results
}

// The example (issue 21 item 2): 10 concurrent loops under Policy{Timeout: 2s,
// Breaker: br}, br OPEN with 1.5 s left. They used to sleep 1.5 s, all of them, before 1 ran
// its trial call and 9 got circuit_open. With BreakerWait, one loop waits for the trial
// call (HalfOpenCalls is 1) and its success closes the breaker at 1.5 s; the other 9 return
// within 1 ms, with circuit_open, no attempt, and 1.5 s as RetryAfter. With the zero
// BreakerWait all 10 return at once.
func TestTenLoopsOnlyTheTrialWaits(t *testing.T) {
	for _, tc := range []struct {
		name        string
		breakerWait time.Duration
		waiting     int
	}{
		{"BreakerWait NoLimit", retry.NoLimit, 1},
		{"BreakerWait 2s", 2 * time.Second, 1},
		{"zero BreakerWait", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				br := openWithLeft(t, breaker.Config{}, 1500*time.Millisecond)
				p := &retry.Policy{Timeout: 2 * time.Second, Breaker: br, BreakerWait: tc.breakerWait}
				results := runConcurrent(p, 10, func(context.Context) error { return nil })
				fast, trials := 0, 0
				for _, r := range results {
					var e *retry.Error
					switch {
					case r.err == nil && r.attempts == 1 && r.took == 1500*time.Millisecond:
						trials++
					case errors.As(r.err, &e) && e.Reason == retry.ReasonCircuitOpen && e.Attempts == 0 && r.attempts == 0 &&
						r.took <= time.Millisecond && retryIn(e) == 1500*time.Millisecond:
						fast++
					default:
						t.Errorf("a loop returned %v after %v and %d attempts", r.err, r.took, r.attempts)
					}
				}
				if trials != tc.waiting || fast != 10-tc.waiting {
					t.Errorf("%d trial calls after 1.5s, %d loops refused within 1ms; want %d and %d", trials, fast, tc.waiting, 10-tc.waiting)
				}
				t.Logf("%s: %d loops returned within 1 ms with circuit_open (RetryAfter 1.5s), %d waited 1.5 s for the trial call", tc.name, fast, trials)
				if want := breaker.StateOpen; tc.waiting == 0 && br.State() != want {
					t.Errorf("state %v with no trial call made, want %v", br.State(), want)
				}
				if tc.waiting == 1 && br.State() != breaker.StateClosed {
					t.Errorf("state %v after the trial call's success, want CLOSED", br.State())
				}
			})
		})
	}
}

// As many loops wait as the breaker admits trial calls: HalfOpenCalls 3, 10 loops, 3 wait
// and make the trial calls, 7 are refused at once.
func TestLoopsWaitingForTrialsBoundedByHalfOpenCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		br := openWithLeft(t, breaker.Config{HalfOpenCalls: 3}, time.Second)
		p := &retry.Policy{Breaker: br, BreakerWait: retry.NoLimit}
		waited := 0
		for _, r := range runConcurrent(p, 10, func(context.Context) error { return nil }) {
			switch {
			case r.err == nil && r.took == time.Second:
				waited++
			case errors.Is(r.err, retry.ErrCircuitOpen) && r.took == 0:
			default:
				t.Errorf("a loop returned %v after %v", r.err, r.took)
			}
		}
		if waited != 3 {
			t.Errorf("%d loops waited for the trial calls, want 3 (HalfOpenCalls)", waited)
		}
	})
}

// The places to wait go with the OPEN episode: once the trial call has reopened the breaker,
// a new loop may wait for the next trial.
func TestTrialPlacesFreedWhenOpenEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		br := openWithLeft(t, breaker.Config{}, time.Second)
		p := &retry.Policy{Breaker: br, BreakerWait: retry.NoLimit, MaxAttempts: 1}
		first := runConcurrent(p, 2, func(context.Context) error { return errDown }) // one trial, which fails
		if n := len(first); n != 2 {
			t.Fatal(n)
		}
		if br.State() != breaker.StateOpen {
			t.Fatalf("state %v after a failed trial, want OPEN again", br.State())
		}
		if !br.ReserveTrial() {
			t.Error("the new OPEN episode has no place to wait for its trial call, want one")
		}
		if br.ReserveTrial() {
			t.Error("a second place in an episode of one trial call")
		}
	})
}

// The fail-fast default needs no MaxWait workaround: under the zero Policy an OPEN breaker
// refuses at once, and a server's 700 ms Retry-After is still waited for (with MaxWait:
// 250ms, the old workaround, it stopped the loop with retry_after_exceeds_max_wait).
func TestFailFastKeepsServerWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		br, _ := breaker.New(breaker.Config{})
		p := &retry.Policy{Breaker: br}
		calls := 0
		start := time.Now()
		err := retry.Do(context.Background(), p, func(context.Context) error {
			if calls++; calls == 1 {
				return retry.After(errDown, 700*time.Millisecond)
			}
			return nil
		})
		if took := time.Since(start); err != nil || calls != 2 || took < 700*time.Millisecond || took >= 1700*time.Millisecond {
			t.Errorf("%d attempts, %v after %v; want success after waiting the 700ms asked (and at most 1 s of spread)", calls, err, took)
		}
		open := openWithLeft(t, breaker.Config{}, 20*time.Second)
		start = time.Now()
		err = retry.Do(context.Background(), &retry.Policy{Breaker: open}, func(context.Context) error { return nil })
		if !errors.Is(err, retry.ErrCircuitOpen) || time.Since(start) != 0 {
			t.Errorf("OPEN breaker: %v after %v; want circuit_open at once", err, time.Since(start))
		}
	})
}
