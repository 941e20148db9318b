package breaker_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/breaker"
)

var errDown = errors.New("service down")

// An open breaker stops a retry loop at once, without running the operation, when it will
// not admit a trial before the loop's deadline.
func TestOpenBreakerStopsLoopAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := breaker.New(breaker.Config{})
		p := &retry.Policy{MaxAttempts: 10, Timeout: 10 * time.Second, Breaker: b}
		calls := 0
		start := time.Now()
		err := retry.Do(context.Background(), p, func(context.Context) error { calls++; return errDown })
		// Attempts 1-3 fail and open the breaker (30 s, past the deadline): stop at once.
		var stop *retry.Error
		if !errors.As(err, &stop) || stop.Reason != retry.ReasonCircuitOpen || stop.Attempts != 3 || calls != 3 ||
			!errors.Is(err, retry.ErrCircuitOpen) || !errors.Is(err, errDown) {
			t.Fatalf("calls %d, err %v", calls, err)
		}
		openedAt := time.Since(start)
		err = retry.Do(context.Background(), p, func(context.Context) error { calls++; return nil })
		if !errors.As(err, &stop) || stop.Reason != retry.ReasonCircuitOpen || stop.Attempts != 0 || calls != 3 ||
			time.Since(start) != openedAt {
			t.Fatalf("second loop: calls %d, err %v after %v", calls, err, time.Since(start)-openedAt)
		}
	})
}

// With BreakerWait, when the trial call fits before the deadline, the loop waits for it,
// and its success closes the breaker.
func TestLoopWaitsForTrialThatFits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := breaker.New(breaker.Config{ConsecutiveFailures: 1, OpenTimeout: 2 * time.Second})
		p := &retry.Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Breaker: b, BreakerWait: retry.NoLimit,
			Backoff: mustConstant(t, 500*time.Millisecond)}
		calls := 0
		start := time.Now()
		err := retry.Do(context.Background(), p, func(context.Context) error {
			if calls++; calls == 1 {
				return errDown
			}
			return nil
		})
		// Attempt 1 fails at 0 and opens it; backoff 0.5 s; the breaker asks 1.5 s more.
		if err != nil || calls != 2 || time.Since(start) != 2*time.Second || b.State() != breaker.StateClosed {
			t.Fatalf("calls %d, err %v after %v, state %v", calls, err, time.Since(start), b.State())
		}
	})
}

// The caller's own cancellation is not a failure of the service.
func TestCallerCancellationNotCounted(t *testing.T) {
	b, _ := breaker.New(breaker.Config{ConsecutiveFailures: 1})
	ctx, cancel := context.WithCancel(context.Background())
	_ = retry.Do(ctx, &retry.Policy{Breaker: b}, func(ctx context.Context) error { cancel(); return ctx.Err() })
	if b.State() != breaker.StateClosed {
		t.Fatalf("state %v after the caller's cancellation", b.State())
	}
}

// retryIn is the wait a loop's stop asks for before the operation is tried again (a
// breaker's time to a trial call), or 0.
func retryIn(e *retry.Error) time.Duration {
	d, _ := e.RetryAfter()
	return d
}

// stateOf is the breaker's state in d's record.
func stateOf(d retry.Decision) string {
	v, _ := d.Attr("breaker")
	return v.String()
}

func mustConstant(t *testing.T, d time.Duration) backoff.Strategy {
	t.Helper()
	s, err := backoff.New(backoff.Config{Kind: backoff.Constant, Base: d, Jitter: backoff.NoJitter})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Decision records carry the breaker's state, so its changes show in the records (SPEC R5.3).
func TestDecisionsRecordBreakerState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := breaker.New(breaker.Config{ConsecutiveFailures: 2, OpenTimeout: time.Second})
		var states []string
		p := &retry.Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Breaker: b, BreakerWait: time.Second,
			Backoff:    mustConstant(t, 100*time.Millisecond),
			OnDecision: func(_ context.Context, d retry.Decision) { states = append(states, stateOf(d)+":"+string(d.Reason)) }}
		calls := 0
		_ = retry.Do(context.Background(), p, func(context.Context) error {
			if calls++; calls <= 2 {
				return errDown
			}
			return nil
		})
		want := []string{"CLOSED:retryable_error", "OPEN:retryable_error", "CLOSED:success"}
		if len(states) != len(want) {
			t.Fatalf("states %v, want %v", states, want)
		}
		for i := range want {
			if states[i] != want[i] {
				t.Fatalf("states %v, want %v", states, want)
			}
		}
	})
}
