package simulate

import (
	"errors"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
)

// A loop on virtual time makes the attempts and waits that retry.Decide says.
func TestLoopFollowsDecide(t *testing.T) {
	sm := &sim{}
	strategy, err := backoff.New(backoff.Config{Base: time.Second, Max: time.Minute, Jitter: backoff.NoJitter})
	if err != nil {
		t.Fatal(err)
	}
	p := &retry.Policy{MaxAttempts: 4, Backoff: strategy}
	var starts []time.Duration
	var final retry.Decision
	startLoop(sm, p, false, time.Time{}, func(_ time.Time, reply func(retry.Outcome)) {
		starts = append(starts, sm.now)
		sm.after(100*time.Millisecond, func() { reply(retry.Outcome{Status: 503}) })
	}, func(d retry.Decision) { final = d })
	if err := sm.run(); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, 1100 * time.Millisecond, 3200 * time.Millisecond, 7300 * time.Millisecond}
	if len(starts) != len(want) {
		t.Fatalf("attempts at %v, want %v", starts, want)
	}
	for i := range want {
		if starts[i] != want[i] {
			t.Fatalf("attempts at %v, want %v", starts, want)
		}
	}
	if final.Reason != retry.ReasonAttemptsExhausted || final.Attempt != 4 {
		t.Errorf("final %s after %d attempts, want attempts_exhausted after 4", final.Reason, final.Attempt)
	}
}

// A wait that does not fit before the deadline stops the loop, as in the executor.
func TestLoopDeadline(t *testing.T) {
	sm := &sim{}
	strategy, _ := backoff.New(backoff.Config{Base: 4 * time.Second, Max: time.Minute, Jitter: backoff.NoJitter})
	p := &retry.Policy{MaxAttempts: retry.NoLimit, Backoff: strategy, Timeout: 10 * time.Second}
	var final retry.Decision
	attempts := 0
	startLoop(sm, p, false, time.Time{}, func(_ time.Time, reply func(retry.Outcome)) {
		attempts++
		sm.after(time.Second, func() { reply(retry.Outcome{Status: 503}) })
	}, func(d retry.Decision) { final = d })
	if err := sm.run(); err != nil {
		t.Fatal(err)
	}
	// Attempt 1 ends at 1s, waits 4s; attempt 2 ends at 6s; a wait of 8s leaves no time.
	if attempts != 2 || final.Reason != retry.ReasonWaitExceedsDeadline {
		t.Errorf("%d attempts, %s; want 2 attempts, wait_exceeds_deadline", attempts, final.Reason)
	}
}

// With BreakerWait, an open breaker whose trial time fits is waited for; one that does not
// stops the loop.
func TestLoopBreaker(t *testing.T) {
	sm := &sim{}
	br := newSimBreaker(sm, 1, 2*time.Second)
	p := &retry.Policy{MaxAttempts: 3, Breaker: br, BreakerWait: 30 * time.Second, Backoff: mustNoJitter(t, 100*time.Millisecond)}
	var starts []time.Duration
	var final retry.Decision
	startLoop(sm, p, false, time.Time{}, func(_ time.Time, reply func(retry.Outcome)) {
		starts = append(starts, sm.now)
		reply(retry.Outcome{Status: 503})
	}, func(d retry.Decision) { final = d })
	if err := sm.run(); err != nil {
		t.Fatal(err)
	}
	// Attempt 1 at 0 opens the breaker; the retry at 100ms waits until 2s for the trial,
	// which fails and opens it again; the third attempt waits for it too.
	want := []time.Duration{0, 2 * time.Second, 4 * time.Second}
	if len(starts) != 3 || starts[1] != want[1] || starts[2] != want[2] || final.Reason != retry.ReasonAttemptsExhausted {
		t.Errorf("attempts at %v ending %s, want %v ending attempts_exhausted", starts, final.Reason, want)
	}

	sm = &sim{}
	br = newSimBreaker(sm, 1, time.Minute) // longer than BreakerWait: no waiting
	p.Breaker = br
	starts = nil
	startLoop(sm, p, false, time.Time{}, func(_ time.Time, reply func(retry.Outcome)) {
		starts = append(starts, sm.now)
		reply(retry.Outcome{Status: 503})
	}, func(d retry.Decision) { final = d })
	if err := sm.run(); err != nil {
		t.Fatal(err)
	}
	if len(starts) != 1 || final.Reason != retry.ReasonCircuitOpen || final.Attempt != 1 {
		t.Errorf("%d attempts, %s after attempt %d; want 1 attempt, circuit_open", len(starts), final.Reason, final.Attempt)
	}
}

func mustNoJitter(t *testing.T, base time.Duration) backoff.Strategy {
	t.Helper()
	s, err := backoff.New(backoff.Config{Base: base, Max: time.Minute, Jitter: backoff.NoJitter})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An invalid policy ends the run with the policy's error instead of a panic.
func TestLoopInvalidPolicy(t *testing.T) {
	sm := &sim{}
	startLoop(sm, &retry.Policy{MaxAttempts: -7}, false, time.Time{}, func(time.Time, func(retry.Outcome)) {
		t.Error("an attempt ran under an invalid policy")
	}, func(retry.Decision) { t.Error("finish called") })
	if err := sm.run(); !errors.Is(err, retry.ErrInvalidPolicy) {
		t.Errorf("run() = %v, want ErrInvalidPolicy", err)
	}
}
