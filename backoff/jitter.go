package backoff

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// Jitter is how a wait is drawn from its ceiling. Each wait is drawn independently from the
// random number passed to [Strategy.Delay].
type Jitter uint8

const (
	// FullJitter draws uniformly in [0, ceiling]: the "Full Jitter" of Marc Brooker's
	// "Exponential Backoff And Jitter" (AWS Architecture Blog, 2015), sleep =
	// random_between(0, min(cap, base × 2^attempt)). It is the zero value: it spreads
	// clients the most for the least work.
	FullJitter Jitter = iota
	// NoJitter waits exactly the ceiling.
	NoJitter
	// EqualJitter draws uniformly in [ceiling/2, ceiling].
	EqualJitter
	// DecorrelatedJitter draws uniformly in [Base, min(Max, 3 × previous wait)], starting
	// from previous = Base (the AWS Architecture Blog's "Decorrelated Jitter"). It grows from
	// the previous wait, so it ignores Kind and the retry number.
	DecorrelatedJitter
	// ProportionalJitter multiplies the ceiling by a factor between FactorMin and FactorMax,
	// default 0.5 and 1.5: the randomization factor 0.5 of the Google HTTP Client Library
	// for Java's ExponentialBackOff (randomized_interval = retry_interval × a random value in
	// [1 − 0.5, 1 + 0.5]), which cenkalti/backoff follows; gRPC's connection backoff
	// (grpc/doc/connection-backoff.md) uses 0.8 and 1.2. The wait is a whole number of
	// nanoseconds drawn uniformly in the closed range [⌈ceiling × FactorMin⌉,
	// ⌊ceiling × FactorMax⌋], both bounds included, so that every wait lies within
	// ceiling × [FactorMin, FactorMax] even at a ceiling of a few nanoseconds. When that
	// range holds no whole nanosecond (a tiny ceiling and a narrow factor range, e.g.
	// 1 ns × [1.2, 1.7]) the wait is ⌈ceiling × FactorMin⌉, the least whole nanosecond above
	// the range's low end. With a factor above 1 the wait may exceed Max, by that factor at
	// most.
	ProportionalJitter
	// AdditiveJitter adds to the ceiling a number of whole milliseconds drawn uniformly in
	// the closed range [0, ⌊AdditiveMax / 1 ms⌋], default [0, 1000] ms: Google Cloud
	// Storage's "Truncated exponential backoff", wait = 2^n s + random_number_milliseconds
	// (at most 1000, drawn anew for each retry). An AdditiveMax of 1.5 ms adds 0 or 1 ms;
	// one below 1 ms is drawn in whole nanoseconds instead, uniformly in [0, AdditiveMax].
	AdditiveJitter
)

var jitterNames = [...]string{
	FullJitter:         "full",
	NoJitter:           "none",
	EqualJitter:        "equal",
	DecorrelatedJitter: "decorrelated",
	ProportionalJitter: "proportional",
	AdditiveJitter:     "additive",
}

// String returns the name used by the command line: "full", "none", "equal",
// "decorrelated", "proportional" or "additive".
func (j Jitter) String() string {
	if int(j) < len(jitterNames) {
		return jitterNames[j]
	}
	return fmt.Sprintf("Jitter(%d)", uint8(j))
}

// ParseJitter returns the Jitter named s (see [Jitter.String]). Any other string is an error
// that names it and lists the allowed names.
func ParseJitter(s string) (Jitter, error) {
	for j, name := range jitterNames {
		if name == s {
			return Jitter(j), nil
		}
	}
	return 0, fmt.Errorf("backoff: unknown jitter %q: allowed are full, equal, decorrelated, proportional, additive, none", s)
}

// Bounds returns the smallest and largest wait [Strategy.Delay] can return for retry n after
// a previous wait of previous (used by DecorrelatedJitter only; zero or negative means none).
// Both bounds are closed, whole nanoseconds that Delay can return (see each [Jitter] for its
// range).
func (s Strategy) Bounds(n int, previous time.Duration) (low, high time.Duration) {
	c := s.Ceiling(n)
	switch s.jitter {
	case NoJitter:
		return c, c
	case EqualJitter:
		return c - c/2, c
	case DecorrelatedJitter:
		return s.decorrelatedBounds(previous)
	case ProportionalJitter:
		return s.proportionalBounds(c)
	case AdditiveJitter:
		return c, addSaturating(c, s.additiveStep()*s.additiveSteps())
	default:
		return 0, c
	}
}

// Delay returns the wait before retry n (n = 0 is the first retry), drawn from random, a
// uniformly distributed 64-bit number (see [Source]). previous is the wait before the last
// retry, which only DecorrelatedJitter uses; pass 0 before the first retry. The same inputs
// always give the same wait. The result is within [Strategy.Bounds], never negative, and it
// never overflows. Delay on the zero Strategy returns 0.
func (s Strategy) Delay(n int, previous time.Duration, random uint64) time.Duration {
	c := s.Ceiling(n)
	switch s.jitter {
	case NoJitter:
		return c
	case EqualJitter:
		low := c - c/2
		return low + uniform(c-low, random)
	case DecorrelatedJitter:
		lo, hi := s.decorrelatedBounds(previous)
		return lo + uniform(hi-lo, random)
	case ProportionalJitter:
		lo, hi := s.proportionalBounds(c)
		return lo + uniform(hi-lo, random)
	case AdditiveJitter:
		return addSaturating(c, s.additiveStep()*uniform(s.additiveSteps(), random))
	default:
		return uniform(c, random)
	}
}

func (s Strategy) decorrelatedBounds(previous time.Duration) (low, high time.Duration) {
	if previous < s.base {
		previous = s.base
	}
	return s.base, max(s.base, min(s.max, mulSaturating(previous, 3)))
}

// additiveStep is the unit AdditiveJitter draws in: a millisecond, or a nanosecond when
// AdditiveMax is below one millisecond.
func (s Strategy) additiveStep() time.Duration {
	if s.additiveMax < time.Millisecond {
		return 1
	}
	return time.Millisecond
}

func (s Strategy) additiveSteps() time.Duration { return s.additiveMax / s.additiveStep() }

// uniform maps random onto [0, span] without overflow, using the high half of a 128-bit
// product (Lemire's method without the rejection step: each value's probability is off by
// at most (span+1)/2^64 relative, under 5e-6 for any span below a day).
func uniform(span time.Duration, random uint64) time.Duration {
	if span <= 0 {
		return 0
	}
	hi, _ := bits.Mul64(random, uint64(span)+1)
	return time.Duration(hi)
}

// proportionalBounds returns ProportionalJitter's whole-nanosecond range for ceiling c:
// [⌈c × FactorMin⌉, ⌊c × FactorMax⌋], the high end raised to the low end when the range
// holds no whole nanosecond. Rounding outwards-in (up at the low end, down at the high end)
// keeps every wait within c × [FactorMin, FactorMax]; truncating both, as a plain
// time.Duration(float) conversion does, gave 0 for 1 ns × [0.9, 1.1].
func (s Strategy) proportionalBounds(c time.Duration) (low, high time.Duration) {
	low = scale(c, s.factorMin, math.Ceil)
	high = scale(c, s.factorMin+s.factorSpan, math.Floor)
	return low, max(low, high)
}

// scale returns d × f rounded by round (math.Ceil or math.Floor) to whole nanoseconds,
// saturating at MaxDelay and never negative.
func scale(d time.Duration, f float64, round func(float64) float64) time.Duration {
	v := round(float64(d) * f)
	if v >= float64(MaxDelay) {
		return MaxDelay
	}
	if v <= 0 {
		return 0
	}
	return time.Duration(v)
}
