package fleet

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
)

var testConfig = BreakerConfig{
	Fleet:    Config{Interval: 100 * time.Millisecond},
	Breaker:  breaker.Config{ConsecutiveFailures: 3, OpenTimeout: 5 * time.Second},
	OpenRule: OpenRule{MinFleetCalls: 20, FleetFailureRate: 0.5, FleetWindow: 2 * time.Second},
}

// Failures at one replica open its local breaker only: the fleet's rate stays low while the
// other nine succeed (issue 10, test 3, first half).
func TestLocalFailuresDoNotOpenOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bs := replicas(t, 10, new(MemoryStore), testConfig)
		for range 100 { // 10 s of 10 calls a second per replica
			for i, b := range bs {
				r := retry.ResultSuccess
				if i == 0 {
					r = retry.ResultFailure
				}
				call(b, r)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if got := bs[0].State(); got != breaker.StateOpen && got != breaker.StateHalfOpen {
			t.Errorf("failing replica is %v, want its local breaker open", got)
		}
		for i, b := range bs[1:] {
			if got := b.State(); got != breaker.StateClosed {
				t.Errorf("replica %d is %v, want CLOSED", i+1, got)
			}
		}
	})
}

// A fleet-wide outage opens every replica within two intervals of the fleet rule being met,
// including replicas that have not failed a single call (issue 10, test 3, second half).
func TestFleetOutageOpensEveryReplicaWithinTwoIntervals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bs := replicas(t, 10, new(MemoryStore), testConfig)
		time.Sleep(time.Second) // everyone synced, fleet CLOSED
		// Replicas 0..6 see the outage: their local breakers open after 3 failures each, 21
		// in the fleet (MinCalls 20); replicas 7..9 make no call at all.
		for _, b := range bs[:7] {
			for range 5 {
				call(b, retry.ResultFailure)
			}
		}
		time.Sleep(2 * 120 * time.Millisecond) // two intervals at their longest (jitter 1.2)
		synctest.Wait()
		if got := states(bs); got[breaker.StateOpen] != 10 {
			t.Fatalf("states %v, want all 10 OPEN", got)
		}
		for i, b := range bs[7:] {
			if call(b, retry.ResultSuccess) {
				t.Errorf("replica %d admitted a call while the fleet is OPEN", i+7)
			}
		}
	})
}

// After the open timeout exactly one replica of the fleet makes a trial call per open
// timeout; its failure reopens the fleet, its success closes every replica (issue 10, test 4).
func TestOneTrialCallPerOpenTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bs := replicas(t, 10, new(MemoryStore), testConfig)
		time.Sleep(time.Second)
		for _, b := range bs {
			for range 3 {
				call(b, retry.ResultFailure)
			}
		}
		opened := time.Now() // the fleet opens within an interval and a bit
		time.Sleep(300 * time.Millisecond)
		if got := states(bs); got[breaker.StateOpen] != 10 {
			t.Fatalf("states %v, want all OPEN", got)
		}
		// Every replica keeps calling every 10 ms; the service stays down for 2.5 open
		// timeouts, then recovers.
		recovered := opened.Add(5 * testConfig.Breaker.OpenTimeout / 2)
		var trials []time.Duration
		for time.Now().Before(recovered.Add(2 * testConfig.Breaker.OpenTimeout)) {
			for _, b := range bs {
				token, ok, _ := b.Allow()
				if !ok {
					continue
				}
				if _, trial := trialOf(token); trial {
					trials = append(trials, time.Since(opened))
				}
				r := retry.ResultFailure
				if time.Now().After(recovered) {
					r = retry.ResultSuccess
				}
				b.Done(token, r)
			}
			time.Sleep(10 * time.Millisecond)
		}
		// Trials: one per open timeout, about 5 and 10 s after opening while down, then the
		// one at about 15 s succeeds and closes the fleet for good.
		if len(trials) != 3 {
			t.Fatalf("trial calls at %v, want 3", trials)
		}
		// Each comes one open timeout after the fleet (re)opened, plus at most the interval it
		// took the fleet to open (the first) and two intervals to elect the trial replica.
		previous := time.Duration(0)
		for i, at := range trials {
			if gap := at - previous; gap < testConfig.Breaker.OpenTimeout || gap > testConfig.Breaker.OpenTimeout+3*120*time.Millisecond {
				t.Errorf("trial %d at %v, %v after the previous opening; want one open timeout (%v) plus at most three intervals",
					i+1, at, gap, testConfig.Breaker.OpenTimeout)
			}
			previous = at
		}
		if got := states(bs); got[breaker.StateClosed] != 10 {
			t.Errorf("states %v after the successful trial, want all CLOSED", got)
		}
	})
}

// A failed attempt that opens the replica's breaker stops the loop at once, with no wait
// counted, and says when a trial call may come (issue 17 item 2, for the fleet breaker too).
// retryAfter is the wait a loop's stop asks for before the operation is tried again, or 0.
func retryAfter(e *retry.Error) time.Duration {
	d, _ := e.RetryAfter()
	return d
}

func TestAttemptThatOpensStopsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig
		cfg.Breaker = breaker.Config{ConsecutiveFailures: 1, OpenTimeout: time.Minute}
		b := replicas(t, 1, new(MemoryStore), cfg)[0]
		if err := b.SyncNow(t.Context()); err != nil {
			t.Fatal(err)
		}
		var m retry.Metrics
		p := &retry.Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Breaker: b, OnDecision: m.Observe}
		start := time.Now()
		attempts := 0
		err := retry.Do(t.Context(), p, func(context.Context) error { attempts++; return errors.New("down") })
		var stop *retry.Error
		if !errors.As(err, &stop) || stop.Reason != retry.ReasonCircuitOpen || retryAfter(stop) != time.Minute {
			t.Fatalf("got %v, want a circuit_open stop with RetryAfter 1m", err)
		}
		if attempts != 1 || time.Since(start) != 0 {
			t.Errorf("%d attempts in %v, want 1 at once", attempts, time.Since(start))
		}
		if s := m.Snapshot(); s.Retries != 0 {
			t.Errorf("retries counted %d, want 0", s.Retries)
		}
		if got := b.RetryIn(); got != time.Minute {
			t.Errorf("RetryIn after the stop = %v, want 1m", got)
		}
	})
}
