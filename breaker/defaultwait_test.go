package breaker_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
)

// A new user's setup: the zero Policy (30 s Timeout, 30 s MaxWait) with the default breaker
// (3 failures, OPEN for 30 s). A call that starts while the breaker is OPEN, its trial due
// a moment before the call's deadline, is refused at once with circuit_open (SPEC R5.1): it
// used to sleep the whole 30 s for a trial with a millisecond left, then stop with
// deadline_exceeded after 0 attempts. A call that starts 5 s into the open time waits 25 s
// for the trial, which then has 5 s (at least a tenth of the 30 s left) and succeeds.
func TestDefaultBreakerRefusesTrialAgainstDeadline(t *testing.T) {
	for _, tc := range []struct {
		name      string
		later     time.Duration // from the breaker opening to the second call
		calls     int           // attempts of the second call
		reason    retry.Reason  // its stop ("" for success)
		took      time.Duration
		wantRetry time.Duration // the stop's RetryAfter
	}{
		{"trial 1ms before the deadline", time.Millisecond, 0, retry.ReasonCircuitOpen, 0, 30*time.Second - time.Millisecond},
		{"trial 3s before the deadline", 3*time.Second - time.Nanosecond, 0, retry.ReasonCircuitOpen, 0, 27*time.Second + time.Nanosecond},
		{"trial 5s before the deadline", 5 * time.Second, 1, "", 25 * time.Second, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, err := breaker.New(breaker.Config{})
				if err != nil {
					t.Fatal(err)
				}
				p := &retry.Policy{Breaker: b}
				if err := retry.Do(context.Background(), p, func(context.Context) error { return errDown }); !errors.Is(err, retry.ErrAttemptsExhausted) {
					t.Fatalf("first call: %v, want attempts_exhausted (3 failures open the breaker)", err)
				}
				time.Sleep(tc.later)
				calls := 0
				start := time.Now()
				err = retry.Do(context.Background(), p, func(context.Context) error { calls++; return nil })
				took := time.Since(start)
				var stop *retry.Error
				switch {
				case tc.reason == "":
					if err != nil || calls != tc.calls || took != tc.took {
						t.Errorf("second call: err %v, %d attempts after %v; want success, %d attempt after %v", err, calls, took, tc.calls, tc.took)
					}
				case !errors.As(err, &stop) || stop.Reason != tc.reason || stop.Attempts != tc.calls || calls != tc.calls ||
					took != tc.took || retryIn(stop) != tc.wantRetry:
					t.Errorf("second call: err %v (%d attempts run) after %v; want %s after %d attempts in %v, RetryAfter %v",
						err, calls, took, tc.reason, tc.calls, tc.took, tc.wantRetry)
				}
			})
		})
	}
}
