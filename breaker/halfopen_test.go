package breaker

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"
)

// Issue 15 item 1, its example exactly: ConsecutiveFailures 1, OpenTimeout 100 ms, one
// failure at t=0, then Allow every 20 ms for a second, each admitted call reporting success
// 150 ms later. The trial admitted at 100 ms outlives the open time, and its success at
// 250 ms closes the breaker. Before the fix it stayed HALF_OPEN, 41 of 50 calls refused.
func TestIssue15SlowTrialCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var changes []change
		start := time.Now()
		b, err := New(Config{ConsecutiveFailures: 1, OpenTimeout: 100 * time.Millisecond, OnStateChange: func(from, to State, at time.Time) {
			mu.Lock()
			changes = append(changes, change{from, to, at.Sub(start)})
			mu.Unlock()
		}})
		if err != nil {
			t.Fatal(err)
		}
		call(t, b, fail)
		var refused []time.Duration
		var wg sync.WaitGroup
		for range 50 {
			time.Sleep(20 * time.Millisecond)
			token, admitted, _ := b.Allow()
			if !admitted {
				refused = append(refused, time.Since(start))
				continue
			}
			wg.Go(func() {
				time.Sleep(150 * time.Millisecond)
				b.Done(token, ok)
			})
		}
		wg.Wait()
		ms := func(n ...int) []time.Duration {
			d := make([]time.Duration, len(n))
			for i, v := range n {
				d[i] = time.Duration(v) * time.Millisecond
			}
			return d
		}
		// OPEN until 100 ms, then HALF_OPEN with its one trial in flight until 250 ms.
		if want := ms(20, 40, 60, 80, 120, 140, 160, 180, 200, 220, 240); !slices.Equal(refused, want) {
			t.Errorf("refused at %v, want %v (11 of 50)", refused, want)
		}
		wantChanges(t, changes,
			change{StateClosed, StateOpen, 0},
			change{StateOpen, StateHalfOpen, 100 * time.Millisecond},
			change{StateHalfOpen, StateClosed, 250 * time.Millisecond})
	})
}

// A trial call running longer than the open time holds its place: the others are refused
// (retryIn -1: its result decides) until it reports, and its success closes the breaker.
func TestSlowTrialHoldsItsPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes []change
		b := newRecorded(t, Config{ConsecutiveFailures: 1, OpenTimeout: 10 * time.Second}, &changes)
		call(t, b, fail)
		time.Sleep(10 * time.Second)
		slow, _, _ := b.Allow()
		for range 5 { // five open times later, still one trial, still counted
			time.Sleep(10 * time.Second)
			wantRefused(t, b, -1)
		}
		b.Done(slow, ok)
		wantState(t, b, StateClosed)
		wantChanges(t, changes,
			change{StateClosed, StateOpen, 0},
			change{StateOpen, StateHalfOpen, 10 * time.Second},
			change{StateHalfOpen, StateClosed, 60 * time.Second})
	})
}

// A trial that has not reported within TrialTimeout is presumed lost: its place goes to a
// new trial call. Its result, when it comes within the same HALF_OPEN episode, still counts.
func TestLostTrialPresumedLostAfterTrialTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes []change
		b := newRecorded(t, Config{ConsecutiveFailures: 1, OpenTimeout: 10 * time.Second, TrialTimeout: 30 * time.Second}, &changes)
		call(t, b, fail)
		time.Sleep(10 * time.Second)
		lost, _, _ := b.Allow()
		time.Sleep(30*time.Second - time.Nanosecond)
		wantRefused(t, b, -1)
		time.Sleep(time.Nanosecond)
		second, admitted, _ := b.Allow()
		if !admitted {
			t.Fatal("no new trial call after TrialTimeout")
		}
		wantRefused(t, b, -1) // HalfOpenCalls 1: the new trial is the only one in flight
		b.Done(lost, fail)    // late, but of this episode: it counts
		wantState(t, b, StateOpen)
		b.Done(second, ok) // of the episode that ended: stale
		wantState(t, b, StateOpen)
		wantChanges(t, changes,
			change{StateClosed, StateOpen, 0},
			change{StateOpen, StateHalfOpen, 10 * time.Second},
			change{StateHalfOpen, StateOpen, 40 * time.Second})
	})
}

// A trial reported as ignored (its caller's own cancellation) gives its place back at once.
func TestIgnoredTrialGivesItsPlaceBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := New(Config{ConsecutiveFailures: 1, OpenTimeout: time.Second})
		call(t, b, fail)
		time.Sleep(time.Second)
		canceled, _, _ := b.Allow()
		wantRefused(t, b, -1)
		b.Done(canceled, ignored)
		wantState(t, b, StateHalfOpen)
		call(t, b, ok)
		wantState(t, b, StateClosed)
	})
}

// Steady traffic against a recovered but slow service always closes the breaker: with calls
// arriving every gap, each lasting duration (up to five times OpenTimeout, and shorter than
// TrialTimeout), the breaker closes exactly when the SuccessThreshold-th trial admitted
// after the open time succeeds: at a + (SuccessThreshold-1)×gap + duration, a being the
// first arrival at or after OpenTimeout, so within OpenTimeout + duration +
// SuccessThreshold×gap. With an arrival at OpenTimeout and one trial needed, that is one
// trial duration plus OpenTimeout.
func TestRecoveredSlowServiceCloses(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		openTimeout := time.Duration(rapid.IntRange(1, 50).Draw(rt, "openTimeout")) * 10 * time.Millisecond
		duration := time.Duration(rapid.IntRange(1, int(5*openTimeout/time.Millisecond)).Draw(rt, "durationMs")) * time.Millisecond
		gap := time.Duration(rapid.IntRange(5, 100).Draw(rt, "gapMs")) * time.Millisecond
		halfOpenCalls := rapid.IntRange(1, 3).Draw(rt, "halfOpenCalls")
		cfg := Config{ConsecutiveFailures: 1, OpenTimeout: openTimeout, HalfOpenCalls: halfOpenCalls,
			SuccessThreshold: rapid.IntRange(1, halfOpenCalls).Draw(rt, "successThreshold")}
		if rapid.Bool().Draw(rt, "shortTrialTimeout") {
			cfg.TrialTimeout = duration + time.Millisecond // just longer than a call
		}
		first := (openTimeout + gap - 1) / gap * gap // the first arrival at or after OpenTimeout
		want := first + time.Duration(cfg.SuccessThreshold-1)*gap + duration
		if bound := openTimeout + duration + time.Duration(cfg.SuccessThreshold)*gap; want > bound {
			rt.Fatalf("closing at %v would break the bound %v", want, bound)
		}
		changes, most, err := runSteadyTraffic(t, cfg, gap, duration, want+2*gap)
		if err != nil {
			rt.Fatal(err)
		}
		wantChanges := []change{{StateClosed, StateOpen, 0}, {StateOpen, StateHalfOpen, first}, {StateHalfOpen, StateClosed, want}}
		if !slices.Equal(changes, wantChanges) || most > halfOpenCalls {
			rt.Fatalf("changes %v, up to %d trial calls at once; want %v, at most HalfOpenCalls (%d)", changes, most, wantChanges, halfOpenCalls)
		}
	})
}

// runSteadyTraffic opens a breaker configured by cfg at t=0, then sends a call every gap
// until end, each reporting success after duration. It returns the changes of state and the
// most trial calls that were in flight at once.
func runSteadyTraffic(t *testing.T, cfg Config, gap, duration, end time.Duration) (changes []change, most int, err error) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		start := time.Now()
		cfg.OnStateChange = func(from, to State, at time.Time) {
			mu.Lock()
			changes = append(changes, change{from, to, at.Sub(start)})
			mu.Unlock()
		}
		var b *Breaker
		if b, err = New(cfg); err != nil {
			return
		}
		token, _, _ := b.Allow()
		b.Done(token, fail)
		var wg sync.WaitGroup
		trials := 0
		for time.Since(start)+gap <= end {
			time.Sleep(gap)
			token, admitted, _ := b.Allow()
			if !admitted {
				continue
			}
			trial := b.State() == StateHalfOpen
			if trial {
				mu.Lock()
				trials++
				most = max(most, trials)
				mu.Unlock()
			}
			wg.Go(func() {
				time.Sleep(duration)
				if trial {
					mu.Lock()
					trials--
					mu.Unlock()
				}
				b.Done(token, ok)
			})
		}
		wg.Wait()
	})
	return changes, most, err
}
