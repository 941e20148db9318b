package budget

import (
	"math"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
)

// Resent counts n re-sends at once, however large n is (a count reported by an operation,
// not bounded by the library): math.MaxInt32 re-sends are that many requests and retries,
// which leave no room for another retry until they leave the window. Counting them one by
// one under the budget's lock took seconds.
func TestRatioResentCountsLargeNAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, err := NewRatio(RatioConfig{Ratio: 0.5, MinRetriesPerSecond: retry.None, Window: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			b.Done(false, retry.ResultSuccess)
		}
		b.Resent(math.MaxInt32)
		// 2^31-1 retries against 0.5 × (2^31-1 + 4) allowed: refused.
		if b.AllowRetry() {
			t.Fatal("AllowRetry after 2^31-1 re-sends = true, want false")
		}
		time.Sleep(time.Second) // everything leaves the window
		for range 4 {
			b.Done(false, retry.ResultSuccess)
		}
		got := []bool{b.AllowRetry(), b.AllowRetry(), b.AllowRetry()}
		if want := []bool{true, true, false}; !slices.Equal(got, want) {
			t.Errorf("after the window, AllowRetry three times = %v, want %v (2 retries of 4 requests at ratio 0.5, then a refusal)", got, want)
		}
	})
}
