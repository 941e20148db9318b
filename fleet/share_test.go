package fleet

import (
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
)

// Share is never negative, whatever it is given: settings no budget.NewRatio would accept
// (NaN, infinities, negatives), counts at the ends of int64 (a store's sum that would
// overflow), zero or negative replicas. A NaN or negative rule leaves nothing to spend; an
// unbounded one, at most math.MaxInt64.
func TestShareNeverNegative(t *testing.T) {
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 0, 1e300, math.MaxFloat64, 0.1, retry.None}
	anyFloat := rapid.OneOf(rapid.SampledFrom(special), rapid.Float64())
	anyCount := rapid.OneOf(rapid.SampledFrom([]int64{math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, -1, 0, 1}), rapid.Int64())
	rapid.Check(t, func(t *rapid.T) {
		cfg := budget.RatioConfig{
			Ratio:               anyFloat.Draw(t, "ratio"),
			MinRetriesPerSecond: anyFloat.Draw(t, "floor"),
			Window:              time.Duration(rapid.OneOf(rapid.SampledFrom([]int64{math.MaxInt64, -1, 0}), rapid.Int64()).Draw(t, "window")),
		}
		requests, retries, own := anyCount.Draw(t, "fleet requests"), anyCount.Draw(t, "fleet retries"), anyCount.Draw(t, "own requests")
		replicas := rapid.OneOf(rapid.SampledFrom([]int{math.MaxInt, math.MinInt, -1, 0, 1}), rapid.Int()).Draw(t, "replicas")
		u := rapid.Float64Range(0, 1).Draw(t, "u")
		if n := Share(cfg, requests, retries, own, replicas, u); n < 0 {
			t.Fatalf("Share(%+v, %d, %d, %d, %d, %v) = %d, want at least 0", cfg, requests, retries, own, replicas, u, n)
		}
	})
}

// The fleet's requests at the end of int64 plus the replicas do not overflow into a negative
// divisor: the share is a small positive number, not a negative one.
func TestShareAtTheEndOfInt64(t *testing.T) {
	cfg := budget.RatioConfig{Ratio: 0.1, MinRetriesPerSecond: retry.None, Window: 10 * time.Second}
	// What is left, 0.1 × (2^63 - 2), shared by requests: a tenth of this replica's 10^18.
	if n := Share(cfg, math.MaxInt64-1, 0, 1e18, 3, 0); n < 0.99e17 || n > 1.01e17 {
		t.Errorf("share of 10^18 requests among 2^63 - 2: %d, want about 10^17", n)
	}
	if n := Share(budget.RatioConfig{Ratio: math.NaN()}, 100, 0, 10, 2, 0); n != 0 {
		t.Errorf("NaN ratio: share %d, want 0", n)
	}
	if n := Share(budget.RatioConfig{Ratio: math.Inf(1)}, 100, 0, 10, 2, 0); n != math.MaxInt64 {
		t.Errorf("infinite ratio: share %d, want math.MaxInt64", n)
	}
}
