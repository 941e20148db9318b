package breaker

import (
	"testing"
	"testing/synctest"
	"time"
)

// RetryIn says, without admitting anything, how long until Allow would admit a call: 0 in
// CLOSED; the open time left in OPEN, 0 once it is over (the breaker stays OPEN until an
// Allow); -1 while HALF_OPEN's trial call is in flight, and 0 again once that trial is
// presumed lost after TrialTimeout.
func TestRetryIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, err := New(Config{ConsecutiveFailures: 1, OpenTimeout: 10 * time.Second, TrialTimeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		want := func(step string, d time.Duration) {
			t.Helper()
			if got := b.RetryIn(); got != d {
				t.Fatalf("%s: RetryIn %v, want %v", step, got, d)
			}
		}
		want("CLOSED", 0)
		call(t, b, fail)
		want("just opened", 10*time.Second)
		time.Sleep(6 * time.Second)
		want("OPEN 6 s", 4*time.Second)
		time.Sleep(4 * time.Second)
		want("open time over", 0)
		wantState(t, b, StateOpen) // RetryIn admitted nothing
		if _, admitted, _ := b.Allow(); !admitted {
			t.Fatal("the trial call was refused")
		}
		want("trial in flight", -1)
		time.Sleep(30*time.Second - time.Nanosecond)
		want("trial 1 ns short of TrialTimeout", -1)
		time.Sleep(time.Nanosecond)
		want("trial presumed lost", 0)
		wantState(t, b, StateHalfOpen)
	})
}
