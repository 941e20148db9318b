package backoff

import (
	"math"
	"math/big"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// exactCeiling returns min(Max, Base × m^n) computed with 400-bit floats, in nanoseconds.
func exactCeiling(base, maxDelay time.Duration, m float64, n int) *big.Float {
	v := new(big.Float).SetPrec(400).SetInt64(int64(base))
	bm := new(big.Float).SetPrec(400).SetFloat64(m)
	limit := new(big.Float).SetInt64(int64(maxDelay))
	for range n {
		if v.Cmp(limit) >= 0 {
			break
		}
		v.Mul(v, bm)
	}
	if v.Cmp(limit) > 0 {
		return limit
	}
	return v
}

// SPEC R1.3 with Config.Multiplier: the exponential ceiling is min(Max, Base × m^n) to the
// nearest nanosecond, within 1 ns up to an hour and within 1e-13 relative beyond, for any
// multiplier.
func TestPropertyMultiplierCeilingAccurate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "base"))
		maxDelay := base + time.Duration(rapid.Int64Range(0, math.MaxInt64-int64(base)).Draw(t, "max-base"))
		m := multiplierGen().Draw(t, "multiplier")
		n := rapid.IntRange(0, 300).Draw(t, "n")
		s, err := New(Config{Base: base, Max: maxDelay, Jitter: NoJitter, Multiplier: m})
		if err != nil {
			t.Fatal(err)
		}
		if m == 0 {
			m = 2
		}
		want := exactCeiling(base, maxDelay, m, n)
		got := s.Ceiling(n)
		diff, _ := new(big.Float).Sub(new(big.Float).SetInt64(int64(got)), want).Float64()
		wantF, _ := want.Float64()
		if math.Abs(diff) > 1 && math.Abs(diff) > wantF*1e-13 {
			t.Fatalf("Ceiling(%d) with base %v, multiplier %v = %d ns, want %.3f ns (off by %g)", n, base, m, got, wantF, diff)
		}
		if wantF <= float64(time.Hour) && math.Abs(diff) > 1 {
			t.Fatalf("Ceiling(%d) with base %v, multiplier %v = %d ns, want %.3f ns within 1 ns", n, base, m, got, wantF)
		}
	})
}

// Ceilings never decrease from one retry to the next, for any multiplier, base and run of
// retry numbers, including multipliers a few ulps above 1 where rounding is the whole
// difference between two ceilings, and retry numbers up to MaxInt.
func TestPropertyMultiplierCeilingMonotonic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := time.Duration(rapid.OneOf(rapid.Int64Range(1, 1000), rapid.Int64Range(1, math.MaxInt64)).Draw(t, "base"))
		m := multiplierGen().Draw(t, "multiplier")
		s, err := New(Config{Base: base, Max: MaxDelay, Jitter: NoJitter, Multiplier: m})
		if err != nil {
			t.Fatal(err)
		}
		start := rapid.OneOf(rapid.IntRange(0, 100), rapid.IntRange(0, math.MaxInt-64)).Draw(t, "start")
		previous := s.Ceiling(start)
		if previous < base {
			t.Fatalf("Ceiling(%d) = %v below Base %v", start, previous, base)
		}
		for n := start + 1; n < start+64; n++ {
			c := s.Ceiling(n)
			if c < previous {
				t.Fatalf("multiplier %v, base %v: Ceiling(%d) = %v < Ceiling(%d) = %v", m, base, n, c, n-1, previous)
			}
			previous = c
		}
	})
}

// The largest value of one binade of the fraction never exceeds the smallest of the next,
// and the Horner evaluation is monotone across the whole of [0, 1).
func TestExp2FractionMonotonic(t *testing.T) {
	if got := exp2Fraction(0); got != 1 {
		t.Errorf("exp2Fraction(0) = %v, want 1", got)
	}
	if got := exp2Fraction(math.Nextafter(1, 0)); got > 2 {
		t.Errorf("exp2Fraction(1-ulp) = %v, want at most 2", got)
	}
	previous := 0.0
	for r := 0.0; r < 1; r += 1.0 / 8192 {
		for _, x := range []float64{r, math.Nextafter(r, 1), math.Nextafter(math.Nextafter(r, 1), 1)} {
			got := exp2Fraction(x)
			if got < previous {
				t.Fatalf("exp2Fraction(%v) = %v < %v", x, got, previous)
			}
			if want := math.Exp2(x); math.Abs(got-want) > 4*0x1p-52*want {
				t.Fatalf("exp2Fraction(%v) = %v, math.Exp2 gives %v", x, got, want)
			}
			previous = got
		}
	}
}

func TestMultiplierCeilings(t *testing.T) {
	tests := []struct {
		name       string
		base, max  time.Duration
		multiplier float64
		want       []time.Duration
	}{
		{"zero means doubling", 100 * time.Millisecond, 30 * time.Second, 0,
			[]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}},
		{"cenkalti/backoff's default 1.5", 500 * time.Millisecond, time.Minute, 1.5,
			[]time.Duration{500 * time.Millisecond, 750 * time.Millisecond, 1125 * time.Millisecond, 1687500 * time.Microsecond, 2531250 * time.Microsecond}},
		{"gRPC connection backoff 1.6, capped at 120 s", time.Second, 120 * time.Second, 1.6,
			[]time.Duration{time.Second, 1600 * time.Millisecond, 2560 * time.Millisecond, 4096 * time.Millisecond, 6553600 * time.Microsecond,
				10485760 * time.Microsecond, 16777216 * time.Microsecond, 26843545600, 42949672960, 68719476736, 109951162778, 120 * time.Second}},
		{"1 keeps every ceiling at Base", 3 * time.Second, time.Minute, 1,
			[]time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second}},
		{"3 triples", time.Second, time.Minute, 3,
			[]time.Duration{time.Second, 3 * time.Second, 9 * time.Second, 27 * time.Second, time.Minute}},
	}
	for _, tt := range tests {
		s, err := New(Config{Base: tt.base, Max: tt.max, Multiplier: tt.multiplier, Jitter: NoJitter})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for n, want := range tt.want {
			if got := s.Ceiling(n); got != want {
				t.Errorf("%s: Ceiling(%d) = %v (%d ns), want %v", tt.name, n, got, got, want)
			}
		}
	}
}

// Any attempt number saturates at Max, never overflows, for any multiplier.
func TestMultiplierSaturates(t *testing.T) {
	for _, m := range []float64{1 + 0x1p-52, 1.0001, 1.5, 2, 2.1, 10, math.MaxFloat64} {
		s, err := New(Config{Base: time.Nanosecond, Max: MaxDelay, Multiplier: m, Jitter: NoJitter})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1 << 40, math.MaxInt} {
			if n == 1<<40 && m < 1.0001 {
				continue // 1 ns × (1 + 2^-52)^(2^40) is still 1 ns
			}
			if got := s.Ceiling(n); got != MaxDelay {
				t.Errorf("multiplier %v: Ceiling(%d) = %v, want MaxDelay", m, n, got)
			}
		}
		if got := s.Multiplier(); got != m {
			t.Errorf("Multiplier() = %v, want %v", got, m)
		}
	}
	s, _ := New(Config{Kind: Linear, Base: time.Second, Max: time.Minute})
	if got := s.Multiplier(); got != 0 {
		t.Errorf("linear Multiplier() = %v, want 0", got)
	}
	s, _ = New(Config{Base: time.Second, Max: time.Minute})
	if got := s.Multiplier(); got != 2 {
		t.Errorf("default Multiplier() = %v, want 2", got)
	}
}
