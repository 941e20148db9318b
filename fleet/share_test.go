package fleet

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// Grant is never negative, whatever it is given: rules no budget.NewRatio would accept
// (NaN, infinities, negatives), counts at the ends of int64 (a store's sum that would
// overflow), zero or negative replicas, others' grants beyond what is left. A NaN or negative
// rule leaves nothing to spend; an unbounded one, at most math.MaxInt64. Share is in (0, 1].
func TestGrantNeverNegative(t *testing.T) {
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 0, 1e300, math.MaxFloat64, 0.1}
	anyFloat := rapid.OneOf(rapid.SampledFrom(special), rapid.Float64())
	anyCount := rapid.OneOf(rapid.SampledFrom([]int64{math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, -1, 0, 1}), rapid.Int64())
	anyInt := rapid.OneOf(rapid.SampledFrom([]int{math.MaxInt, math.MinInt, -1, 0, 1}), rapid.Int())
	rapid.Check(t, func(t *rapid.T) {
		rule := BudgetRule{Ratio: anyFloat.Draw(t, "ratio"), Floor: anyFloat.Draw(t, "floor"), MinReplicas: anyInt.Draw(t, "min replicas")}
		requests, retries, others, own := anyCount.Draw(t, "fleet requests"), anyCount.Draw(t, "fleet retries"),
			anyCount.Draw(t, "others"), anyCount.Draw(t, "own requests")
		replicas := anyInt.Draw(t, "replicas")
		u := rapid.Float64Range(0, 1).Draw(t, "u")
		if n := Grant(rule, requests, retries, others, own, replicas, u); n < 0 {
			t.Fatalf("Grant(%+v, %d, %d, %d, %d, %d, %v) = %d, want at least 0", rule, requests, retries, others, own, replicas, u, n)
		}
		if s := Share(requests, own, replicas, rule.MinReplicas); !(s > 0 && s <= 1) {
			t.Fatalf("Share(%d, %d, %d, %d) = %v, want in (0, 1]", requests, own, replicas, rule.MinReplicas, s)
		}
	})
}

// The fleet's requests at the end of int64 plus the replicas do not overflow into a negative
// divisor: the grant is a small positive number, not a negative one.
func TestGrantAtTheEndOfInt64(t *testing.T) {
	rule := BudgetRule{Ratio: 0.1}
	// What is left, 0.1 × (2^63 - 2), shared by requests: a tenth of this replica's 10^18.
	if n := Grant(rule, math.MaxInt64-1, 0, 0, 1e18, 3, 0); n < 0.99e17 || n > 1.01e17 {
		t.Errorf("grant of 10^18 requests among 2^63 - 2: %d, want about 10^17", n)
	}
	if n := Grant(BudgetRule{Ratio: math.NaN()}, 100, 0, 0, 10, 2, 0); n != 0 {
		t.Errorf("NaN ratio: grant %d, want 0", n)
	}
	if n := Grant(BudgetRule{Ratio: math.Inf(1)}, 100, 0, 0, 10, 2, 0); n != math.MaxInt64 {
		t.Errorf("infinite ratio: grant %d, want math.MaxInt64", n)
	}
}
