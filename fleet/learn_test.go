package fleet

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
)

// Issue 32 item 1: a throttle is never a failure, locally or fleet-wide. Ten replicas whose
// calls are 60% throttled and 40% failed stay CLOSED (the fleet's rule: half failed), and
// their local breakers too (no 3 failures in a row); had the throttles counted as failures,
// the fleet would have opened in the first second.
func TestThrottlesAreNoFleetFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bs := replicas(t, 10, new(MemoryStore), testConfig)
		for step := range 50 { // 5 s, 10 calls a second per replica
			for i, b := range bs {
				r := retry.ResultThrottled
				if (i+step)%5 < 2 {
					r = retry.ResultFailure
				}
				if !call(b, r) {
					t.Fatalf("step %d: a call refused in %v", step, b.State())
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		if got := states(bs); got[breaker.StateClosed] != 10 {
			t.Fatalf("states %v, want all CLOSED", got)
		}
	})
}

// openFleet makes every replica fail three calls, each answer asking for wait (30 failures:
// the fleet's rule is met), and waits until all of them see the fleet OPEN.
func openFleet(t *testing.T, bs []*Breaker, wait time.Duration) {
	t.Helper()
	for _, b := range bs {
		for range 3 {
			if token, ok, _ := b.Allow(); ok {
				b.DoneRetryAfter(token, retry.ResultFailure, wait)
			}
		}
	}
	time.Sleep(300 * time.Millisecond)
	for _, b := range bs {
		if b.mode.Load() != modeOpen {
			t.Fatalf("mode %d, want the fleet OPEN", b.mode.Load())
		}
	}
}

// failTrials keeps every replica calling every 10 ms, failing each call with wait, until a
// trial call has failed; it returns the time from then until the fleet admits the next trial
// call (its open time, to the interval).
func failTrials(t *testing.T, bs []*Breaker, wait time.Duration) {
	t.Helper()
	for {
		for _, b := range bs {
			token, ok, _ := b.Allow()
			if !ok {
				continue
			}
			if _, trial := trialOf(token); !trial {
				t.Fatalf("a call admitted in %v that is no trial call", b.State())
			}
			b.DoneRetryAfter(token, retry.ResultFailure, wait)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Issue 32 item 5, fleet-wide: the OPEN a fleet's rule starts lasts the server's wait of the
// failures that met the rule (Retry-After: 12 s, beyond the OpenTimeout of 5 s), and with
// OpenTimeoutMultiplier 2 each failed trial call doubles it (10 s, 20 s): every replica
// refuses for that long and says so (RetryIn), to the interval.
func TestFleetOpenTimeLearns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig
		cfg.Breaker = breaker.Config{ConsecutiveFailures: 3, OpenTimeout: 5 * time.Second, OpenTimeoutMultiplier: 2,
			MaxOpenTimeout: time.Minute}
		bs := replicas(t, 10, new(MemoryStore), cfg)
		time.Sleep(time.Second)
		openFleet(t, bs, 12*time.Second)
		near := func(step string, got, want time.Duration) {
			t.Helper()
			if got > want || got < want-2*120*time.Millisecond {
				t.Fatalf("%s: %v, want %v less at most two intervals", step, got, want)
			}
		}
		for _, b := range bs {
			near("RetryIn after the fleet opened on Retry-After: 12", b.RetryIn(), 12*time.Second-300*time.Millisecond)
		}
		for i, want := range []time.Duration{10 * time.Second, 20 * time.Second} {
			failTrials(t, bs, 0)
			time.Sleep(300 * time.Millisecond) // every replica learns the reopening
			for _, b := range bs {
				if b.mode.Load() != modeOpen {
					t.Fatalf("trial %d failed: a replica's mode is %d, want the fleet OPEN", i+1, b.mode.Load())
				}
				near("RetryIn after a failed trial", b.RetryIn(), want-300*time.Millisecond)
			}
		}
	})
}
