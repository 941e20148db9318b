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

// A new user's setup: the zero Policy (30 s Timeout) with the default breaker (3 failures,
// OPEN for 30 s). A call that starts while the breaker is OPEN is refused at once with
// circuit_open and the time until the trial call as RetryAfter (SPEC R5.1; issue 21 item 2):
// it used to wait for the trial when one fitted, so a call made 10 s into the open time
// waited 20 s. With BreakerWait NoLimit a call still waits for a trial that keeps a tenth of
// the time left: 5 s into the open time it waits 25 s, and the trial succeeds; 1 ms or 3 s in,
// the trial would come too close to the deadline and the call is refused at once.
func TestDefaultBreakerRefusesAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name        string
		breakerWait time.Duration
		later       time.Duration // from the breaker opening to the second call
		calls       int           // attempts of the second call
		reason      retry.Reason  // its stop ("" for success)
		took        time.Duration
		wantRetry   time.Duration // the stop's RetryAfter
	}{
		{"zero Policy, 1ms into the open time", 0, time.Millisecond, 0, retry.ReasonCircuitOpen, 0, 30*time.Second - time.Millisecond},
		{"zero Policy, 10s into the open time", 0, 10 * time.Second, 0, retry.ReasonCircuitOpen, 0, 20 * time.Second},
		{"zero Policy, 29s into the open time", 0, 29 * time.Second, 0, retry.ReasonCircuitOpen, 0, time.Second},
		{"BreakerWait NoLimit, trial 1ms before the deadline", retry.NoLimit, time.Millisecond, 0, retry.ReasonCircuitOpen, 0, 30*time.Second - time.Millisecond},
		{"BreakerWait NoLimit, trial 3s before the deadline", retry.NoLimit, 3*time.Second - time.Nanosecond, 0, retry.ReasonCircuitOpen, 0, 27*time.Second + time.Nanosecond},
		{"BreakerWait NoLimit, trial 5s before the deadline", retry.NoLimit, 5 * time.Second, 1, "", 25 * time.Second, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, err := breaker.New(breaker.Config{})
				if err != nil {
					t.Fatal(err)
				}
				p := &retry.Policy{Breaker: b, BreakerWait: tc.breakerWait}
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
