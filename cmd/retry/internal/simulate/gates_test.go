package simulate

import (
	"testing"
	"time"

	"github.com/retrykit/retry"
)

func TestSimBreakerStates(t *testing.T) {
	sm := &sim{}
	b := newSimBreaker(sm, 3, 5*time.Second)
	fail := func() {
		tok, ok, _ := b.Allow()
		if !ok {
			t.Fatalf("refused in %s", b.state)
		}
		b.Done(tok, retry.ResultFailure)
	}
	fail()
	fail()
	if b.state != "CLOSED" {
		t.Fatalf("state %s after 2 failures, want CLOSED", b.state)
	}
	stale, _, _ := b.Allow()
	fail()
	if b.state != "OPEN" {
		t.Fatalf("state %s after 3 failures, want OPEN", b.state)
	}
	b.Done(stale, retry.ResultSuccess) // admitted before the breaker opened: ignored
	if _, ok, in := b.Allow(); ok || in != 5*time.Second {
		t.Fatalf("open breaker: ok %v, retryIn %v; want refusal for 5s", ok, in)
	}
	sm.now = 5 * time.Second
	trial, ok, _ := b.Allow()
	if !ok || b.state != "HALF_OPEN" {
		t.Fatalf("after the open time: ok %v in %s, want a trial in HALF_OPEN", ok, b.state)
	}
	if _, ok, in := b.Allow(); ok || in >= 0 {
		t.Fatalf("second call in HALF_OPEN: ok %v, retryIn %v; want refusal, unknown time", ok, in)
	}
	b.Done(trial, retry.ResultFailure)
	if b.state != "OPEN" || b.openedAt != 5*time.Second {
		t.Fatalf("failed trial: %s opened at %v, want OPEN at 5s", b.state, b.openedAt)
	}
	sm.now = 10 * time.Second
	trial, _, _ = b.Allow()
	b.Done(trial, retry.ResultSuccess)
	if b.state != "CLOSED" {
		t.Fatalf("successful trial: %s, want CLOSED", b.state)
	}
}

// Issue 32: the simulator's breaker counts as package breaker does: a throttle is an answer
// (it never opens the breaker, ends a run of failures, and closes HALF_OPEN), an unknown
// Result is ignored, and the failure that opens it keeps it OPEN for its longer wait.
func TestSimBreakerThrottlesAndWaits(t *testing.T) {
	sm := &sim{}
	b := newSimBreaker(sm, 2, 5*time.Second)
	done := func(r retry.Result, wait time.Duration) {
		t.Helper()
		tok, ok, _ := b.Allow()
		if !ok {
			t.Fatalf("refused in %s", b.state)
		}
		b.DoneRetryAfter(tok, r, wait)
	}
	for range 10 {
		done(retry.ResultThrottled, time.Second)
	}
	done(retry.ResultFailure, 0)
	done(retry.ResultThrottled, 0)
	done(retry.ResultFailure, 0)
	done(retry.Result(200), 0)
	if b.state != "CLOSED" {
		t.Fatalf("state %s, want CLOSED", b.state)
	}
	done(retry.ResultFailure, 12*time.Second)
	if _, ok, in := b.Allow(); b.state != "OPEN" || ok || in != 12*time.Second {
		t.Fatalf("%s, ok %v, retryIn %v; want OPEN for the server's 12s", b.state, ok, in)
	}
	sm.now = 12 * time.Second
	done(retry.ResultThrottled, 0)
	if b.state != "CLOSED" {
		t.Fatalf("throttled trial: %s, want CLOSED", b.state)
	}
}

func TestSimBudgetRatio(t *testing.T) {
	sm := &sim{}
	b := newSimBudget(sm, 0.1, 0, 10*time.Second)
	if b.AllowRetry() {
		t.Fatal("a retry allowed before any attempt")
	}
	for range 25 {
		b.Done(false, retry.ResultFailure)
	}
	allowed := 0
	for range 10 {
		if b.AllowRetry() {
			allowed++
			b.Done(true, retry.ResultFailure)
		}
	}
	// 25 first attempts: a retry (and its attempt) at 26 and 27 requests fits 0.1 × 26;
	// the third would need 3 <= 0.1 × 27.
	if allowed != 2 {
		t.Fatalf("%d retries allowed after 25 first attempts, want 2", allowed)
	}
	sm.now = 10 * time.Second // the window has moved past every count
	if b.AllowRetry() {
		t.Fatal("a retry allowed on attempts older than the window")
	}

	floored := newSimBudget(sm, 0.1, 3, 10*time.Second)
	for range 3 {
		if !floored.AllowRetry() {
			t.Fatal("the floor of 3 retries was refused")
		}
	}
	if floored.AllowRetry() {
		t.Fatal("a fourth retry allowed with no requests and a floor of 3")
	}
}
