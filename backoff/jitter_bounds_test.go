package backoff

import (
	"math"
	"math/big"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Issue 12 item 7: proportional jitter at a ceiling of a few nanoseconds stays within
// ceiling × [FactorMin, FactorMax]; truncating the product gave 0 for a 1 ns ceiling.
func TestProportionalJitterTinyCeilings(t *testing.T) {
	tests := []struct {
		base, low, high time.Duration
		fmin, fmax      float64
	}{
		{1, 1, 1, 0.9, 1.1},   // [0.9, 1.1] holds only 1
		{2, 2, 2, 0.9, 1.1},   // [1.8, 2.2]
		{9, 9, 9, 0.9, 1.1},   // [8.1, 9.9]
		{10, 9, 11, 0.9, 1.1}, // [9, 11], both ends included
		{2, 1, 3, 0.5, 1.5},   // the default factors: [1, 3]
		{1, 2, 2, 1.2, 1.7},   // [1.2, 1.7] holds no whole nanosecond: the least above 1.2
		{3, 0, 0, 0, 0.3},     // [0, 0.9]
	}
	draws := []uint64{0, 1, 1 << 62, 1 << 63, math.MaxUint64 / 3 * 2, math.MaxUint64}
	for _, tt := range tests {
		s, err := New(Config{Kind: Constant, Base: tt.base, Jitter: ProportionalJitter, FactorMin: tt.fmin, FactorMax: tt.fmax})
		if err != nil {
			t.Fatal(err)
		}
		low, high := s.Bounds(0, 0)
		if low != tt.low || high != tt.high {
			t.Errorf("%d ns × [%v, %v]: Bounds = [%d, %d], want [%d, %d]", tt.base, tt.fmin, tt.fmax, low, high, tt.low, tt.high)
		}
		seen := map[time.Duration]bool{}
		for _, r := range draws {
			w := s.Delay(0, 0, r)
			if w < tt.low || w > tt.high {
				t.Errorf("%d ns × [%v, %v]: Delay(random %d) = %d, want within [%d, %d]", tt.base, tt.fmin, tt.fmax, r, w, tt.low, tt.high)
			}
			seen[w] = true
		}
		if !seen[tt.low] || !seen[tt.high] {
			t.Errorf("%d ns × [%v, %v]: draws %v do not reach both ends [%d, %d]", tt.base, tt.fmin, tt.fmax, seen, tt.low, tt.high)
		}
	}
}

// Every proportional bound lies within ceiling × [FactorMin, FactorMax], computed exactly,
// whenever that range holds a whole nanosecond.
func TestPropertyProportionalBoundsWithinFactors(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := time.Duration(rapid.OneOf(rapid.Int64Range(0, 100), rapid.Int64Range(0, int64(time.Hour))).Draw(t, "base"))
		lo := rapid.Float64Range(0, 2).Draw(t, "factorMin")
		hi := lo + rapid.Float64Range(0, 2).Draw(t, "factorSpan")
		s, err := New(Config{Kind: Constant, Base: base, Jitter: ProportionalJitter, FactorMin: lo, FactorMax: hi})
		if err != nil {
			t.Fatal(err)
		}
		low, high := s.Bounds(0, 0)
		if lo == 0 && hi == 0 {
			lo, hi = 0.5, 1.5
		}
		exactLow := new(big.Float).Mul(new(big.Float).SetInt64(int64(base)), big.NewFloat(lo))
		exactHigh := new(big.Float).Mul(new(big.Float).SetInt64(int64(base)), big.NewFloat(hi))
		ceilLow, _ := exactLow.Int(nil)
		if new(big.Float).SetInt(ceilLow).Cmp(exactLow) < 0 {
			ceilLow.Add(ceilLow, big.NewInt(1))
		}
		floorHigh, _ := exactHigh.Int(nil)
		if ceilLow.Cmp(floorHigh) > 0 { // no whole nanosecond in range: the documented fallback
			if low != time.Duration(ceilLow.Int64()) || high != low {
				t.Fatalf("%v × [%v, %v]: Bounds = [%v, %v], want [%v, %v]", base, lo, hi, low, high, ceilLow, ceilLow)
			}
			return
		}
		if low != time.Duration(ceilLow.Int64()) || high != time.Duration(floorHigh.Int64()) {
			t.Fatalf("%v × [%v, %v]: Bounds = [%d, %d], want [%v, %v]", base, lo, hi, low, high, ceilLow, floorHigh)
		}
	})
}

// AdditiveMax below 1 ms is drawn in whole nanoseconds, up to and including AdditiveMax;
// from 1 ms on, in whole milliseconds up to ⌊AdditiveMax / 1 ms⌋.
func TestAdditiveJitterUnits(t *testing.T) {
	tests := []struct {
		additiveMax, wantHigh time.Duration
	}{
		{1, 1},
		{999 * time.Microsecond, 999 * time.Microsecond},
		{time.Millisecond, time.Millisecond},
		{1500 * time.Microsecond, time.Millisecond},
		{2 * time.Second, 2 * time.Second},
	}
	for _, tt := range tests {
		s, err := New(Config{Kind: Constant, Base: time.Second, Jitter: AdditiveJitter, AdditiveMax: tt.additiveMax})
		if err != nil {
			t.Fatal(err)
		}
		low, high := s.Bounds(0, 0)
		if low != time.Second || high != time.Second+tt.wantHigh {
			t.Errorf("AdditiveMax %v: Bounds = [%v, %v], want [1s, %v]", tt.additiveMax, low, high, time.Second+tt.wantHigh)
		}
		if got := s.Delay(0, 0, math.MaxUint64); got != high {
			t.Errorf("AdditiveMax %v: highest draw = %v, want %v", tt.additiveMax, got, high)
		}
		if got := s.Delay(0, 0, 0); got != low {
			t.Errorf("AdditiveMax %v: lowest draw = %v, want %v", tt.additiveMax, got, low)
		}
	}
}
