package breaker_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
)

// Issue 17 item 2, its setup: an attempt opens the breaker for a minute; the loop has 10 s
// and 3 attempts. It stops at once with circuit_open after that attempt: no wait, no retry
// counted, and the error says when the breaker admits a trial call.
func TestBreakerJustOpenedStopsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := breaker.New(breaker.Config{ConsecutiveFailures: 1, OpenTimeout: time.Minute})
		metrics := new(retry.Metrics)
		var decisions []retry.Decision
		p := &retry.Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Breaker: b,
			OnDecision: retry.Observers(metrics.Observe, func(_ context.Context, d retry.Decision) { decisions = append(decisions, d) })}
		start := time.Now()
		err := retry.Do(context.Background(), p, func(context.Context) error { return errDown })
		var stop *retry.Error
		if !errors.As(err, &stop) || stop.Reason != retry.ReasonCircuitOpen || stop.Attempts != 1 ||
			stop.Elapsed != 0 || !errors.Is(err, errDown) {
			t.Fatalf("err = %#v; want circuit_open after 1 attempt in 0s, wrapping the attempt's error", err)
		}
		if in, ok := stop.RetryAfter(); in != time.Minute || !ok {
			t.Errorf("RetryAfter() = %v, %v; want 1m, true", in, ok)
		}
		if want := "retry: circuit_open after 1 attempt in 0s: trial call in 1m0s: service down"; err.Error() != want {
			t.Errorf("err.Error() = %q, want %q", err, want)
		}
		if time.Since(start) != 0 {
			t.Errorf("Do returned after %v, want at once", time.Since(start))
		}
		if len(decisions) != 1 || decisions[0].Retry || decisions[0].Wait != 0 || decisions[0].NoAttempt ||
			stateOf(decisions[0]) != "OPEN" || decisions[0].BreakerRetryIn != time.Minute {
			t.Errorf("decisions = %+v; want one stop after attempt 1, breaker OPEN, BreakerRetryIn 1m", decisions)
		}
		s := metrics.Snapshot()
		if s.Attempts != 1 || s.Retries != 0 || s.WaitTotal != 0 || s.Stops[retry.ReasonCircuitOpen] != 1 {
			t.Errorf("metrics = %+v; want 1 attempt, 0 retries, 0 wait, 1 circuit_open stop", s)
		}
	})
}

// When the breaker that an attempt opened admits a trial in time, the loop waits for it:
// within the backoff's wait, or beyond it within BreakerWait (none by default) with a useful
// attempt left before the deadline. Otherwise it stops at once (Decide's check 8). Times are
// exact under synctest; the trial succeeds.
func TestBreakerOpenedWaitOrStop(t *testing.T) {
	for _, tc := range []struct {
		name                           string
		openTimeout, wait, breakerWait time.Duration
		minAttemptTime                 time.Duration
		wantStarts                     []time.Duration
		wantReason                     retry.Reason
		wantRetryIn, wantDecidedWait   time.Duration
	}{
		{"open time within the wait: retry after the wait", 2 * time.Second, 5 * time.Second, 0, 0,
			[]time.Duration{0, 5 * time.Second}, retry.ReasonSuccess, 0, 5 * time.Second},
		{"open time beyond the wait, zero BreakerWait: stop at once", 3 * time.Second, time.Second, 0, 0,
			[]time.Duration{0}, retry.ReasonCircuitOpen, 3 * time.Second, 0},
		{"open time beyond the wait, within BreakerWait: wait for the breaker", 3 * time.Second, time.Second, retry.NoLimit, 0,
			[]time.Duration{0, 3 * time.Second}, retry.ReasonSuccess, 0, time.Second},
		{"open time beyond the wait and BreakerWait: stop at once", 3 * time.Second, time.Second, 1500 * time.Millisecond, 0,
			[]time.Duration{0}, retry.ReasonCircuitOpen, 3 * time.Second, 0},
		{"trial too close to the deadline: stop at once", 9500 * time.Millisecond, time.Second, retry.NoLimit, time.Second,
			[]time.Duration{0}, retry.ReasonCircuitOpen, 9500 * time.Millisecond, 0},
		{"trial just fits before the deadline", 9 * time.Second, time.Second, retry.NoLimit, time.Second,
			[]time.Duration{0, 9 * time.Second}, retry.ReasonSuccess, 0, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, _ := breaker.New(breaker.Config{ConsecutiveFailures: 1, OpenTimeout: tc.openTimeout})
				var decisions []retry.Decision
				p := &retry.Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Backoff: mustConstant(t, tc.wait),
					BreakerWait: tc.breakerWait, MinAttemptTime: tc.minAttemptTime, Breaker: b,
					OnDecision: func(_ context.Context, d retry.Decision) { decisions = append(decisions, d) }}
				start := time.Now()
				var starts []time.Duration
				err := retry.Do(context.Background(), p, func(context.Context) error {
					if starts = append(starts, time.Since(start)); len(starts) == 1 {
						return errDown
					}
					return nil
				})
				if !slices.Equal(starts, tc.wantStarts) {
					t.Errorf("attempts started at %v, want %v", starts, tc.wantStarts)
				}
				if decisions[0].Wait != tc.wantDecidedWait || decisions[len(decisions)-1].Reason != tc.wantReason {
					t.Errorf("decisions %+v; want a first wait of %v and a last reason %s", decisions, tc.wantDecidedWait, tc.wantReason)
				}
				var stop *retry.Error
				if tc.wantReason == retry.ReasonSuccess {
					if err != nil {
						t.Errorf("err = %v, want nil", err)
					}
				} else if !errors.As(err, &stop) || stop.Reason != tc.wantReason || retryIn(stop) != tc.wantRetryIn {
					t.Errorf("err = %#v; want %s with RetryAfter %v", err, tc.wantReason, tc.wantRetryIn)
				}
			})
		})
	}
}
