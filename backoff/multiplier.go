package backoff

import (
	"fmt"
	"math"
	"time"
)

// setMultiplier validates c.Multiplier and stores Exponential's growth in s.
func (s *Strategy) setMultiplier(c Config) error {
	m := c.Multiplier
	if c.Kind != Exponential {
		if m != 0 {
			return fmt.Errorf("backoff: Multiplier %v is set for %v backoff: only exponential multiplies, leave it zero", m, c.Kind)
		}
		return nil
	}
	if m == 0 {
		m = 2
	}
	if math.IsNaN(m) || math.IsInf(m, 0) || m < 1 {
		return fmt.Errorf("backoff: Multiplier %v is invalid: it must be a finite number of at least 1 (zero means 2)", c.Multiplier)
	}
	s.multiplier, s.log2Growth = m, math.Log2(m)
	return nil
}

// growSaturating returns d × 2^(n × log2Growth) rounded to the nearest nanosecond, at least
// d, or MaxDelay when that would overflow; n = 0 gives d exactly. It never decreases as n
// grows: the exponent x = n × log2Growth is computed with one rounded multiplication, a
// monotone function of n; its integer part k scales exactly (math.Ldexp) and its fraction
// r = x - k (exact) goes through exp2Fraction, monotone on [0, 1) and at most 2, so that the
// largest value with integer part k never exceeds the smallest with k+1; rounding and
// max(d, ·) are monotone too (max(d, ·) also undoes float64(d) rounding below d for
// durations above 2^53 ns).
func growSaturating(d time.Duration, log2Growth float64, n int) time.Duration {
	if d == 0 || n <= 0 {
		return d
	}
	x := float64(n) * log2Growth
	if x >= 64 { // d ≥ 1 ns, so d × 2^64 is past MaxDelay
		return MaxDelay
	}
	k := math.Floor(x)
	v := math.Ldexp(float64(d)*exp2Fraction(x-k), int(k))
	if v >= float64(MaxDelay) {
		return MaxDelay
	}
	return max(d, time.Duration(math.Round(v)))
}

// exp2Terms are ln 2 / i for i = 1 .. 20: the Taylor series of 2^r = e^(r ln 2) in Horner
// form, 1 + r(ln2/1)(1 + r(ln2/2)(1 + ...)). Twenty terms leave a remainder below 1e-23
// for r < 1, far under a float64's rounding.
var exp2Terms = func() (terms [20]float64) {
	for i := range terms {
		terms[i] = math.Ln2 / float64(i+1)
	}
	return terms
}()

// exp2Fraction returns 2^r for r in [0, 1), within a few units in the last place, and is
// monotone non-decreasing in r by construction: every step of the Horner evaluation
// multiplies or adds non-negative quantities that do not decrease in r, and rounding to
// nearest is monotone. (math.Exp2 is more accurate by an ulp but promises no monotonicity.)
// The result is capped at 2, the value at r = 1.
func exp2Fraction(r float64) float64 {
	t := 1.0
	for i := len(exp2Terms) - 1; i >= 0; i-- {
		t = 1 + r*exp2Terms[i]*t
	}
	return min(t, 2)
}
