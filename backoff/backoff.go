// Package backoff computes how long to wait before each retry: constant, linear and
// exponential strategies with a cap, and the jitter kinds that spread a fleet of clients out.
//
// A [Strategy] is an immutable value built by [New] from a [Config]; it is safe for concurrent
// use and does no I/O, reads no clock and never sleeps. Randomness is passed in by the caller
// as a uniform 64-bit number, so a [Source] seeded with [NewSource] makes a sequence of waits
// reproducible.
//
// Retries are counted from zero: retry 0 is the wait before the second attempt, retry n the
// wait before attempt n+2. Every wait returned is in [0, [MaxDelay]]: no input, attempt
// number or random draw makes it negative or overflow.
package backoff

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// MaxDelay is the longest wait any strategy returns, about 292 years: arithmetic that would go
// past it saturates here instead of overflowing.
const MaxDelay = time.Duration(math.MaxInt64)

// Kind is how the wait ceiling grows from one retry to the next.
type Kind uint8

const (
	// Exponential multiplies the ceiling by Multiplier each retry: Base × Multiplier^n,
	// capped at Max; the default Multiplier 2 doubles it. It is the zero value.
	Exponential Kind = iota
	// Constant waits Base every time, e.g. 2 s, 2 s, 2 s.
	Constant
	// Linear adds Step each retry: Base + n × Step, capped at Max.
	Linear
)

// String returns the name used by the command line: "exponential", "constant" or "linear".
func (k Kind) String() string {
	switch k {
	case Exponential:
		return "exponential"
	case Constant:
		return "constant"
	case Linear:
		return "linear"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind returns the Kind named s ("exponential", "constant" or "linear"). Any other
// string is an error that names it and lists the allowed names.
func ParseKind(s string) (Kind, error) {
	for _, k := range []Kind{Exponential, Constant, Linear} {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("backoff: unknown kind %q: allowed are exponential, linear, constant", s)
}

// Config describes a strategy. Durations are Go durations (nanoseconds); fields whose doc
// names a default take it when left zero. Pass it to [New], which validates it.
type Config struct {
	// Kind is the growth of the ceiling; the zero value is Exponential.
	Kind Kind
	// Base is the first retry's ceiling (Exponential, Linear) or every wait (Constant).
	// Zero gives zero waits, which is useful in tests; negative is an error.
	Base time.Duration
	// Step is what Linear adds per retry; zero means Base. Ignored by other kinds.
	Step time.Duration
	// Multiplier is how much Exponential's ceiling grows per retry: Base × Multiplier^n.
	// Zero means 2, a doubling, computed exactly in integers. Any other value
	// must be finite and at least 1 (1 keeps every ceiling at Base); the ceiling is then
	// Base × Multiplier^n rounded to the nearest nanosecond (within 1 ns of the exact value
	// for ceilings up to an hour, relative error under 1e-13 beyond), never decreasing from
	// one retry to the next and saturating at Max for any n. Peers' defaults: 1.5
	// (cenkalti/backoff), 1.6 (gRPC's connection backoff). Constant and Linear do not use it,
	// so a non-zero Multiplier with them is an error rather than silently ignored.
	Multiplier float64
	// Max caps the ceiling. Exponential and Linear require Max >= Base; Constant ignores a
	// zero Max and otherwise also requires Max >= Base.
	Max time.Duration
	// Jitter is how each wait is drawn from its ceiling; the zero value is FullJitter.
	Jitter Jitter
	// FactorMin and FactorMax bound ProportionalJitter's factor, both included; both zero
	// means 0.5 and 1.5. They must satisfy 0 <= FactorMin <= FactorMax and be
	// finite. Waits are whole nanoseconds within ceiling × [FactorMin, FactorMax] (see
	// ProportionalJitter).
	FactorMin, FactorMax float64
	// AdditiveMax is the most AdditiveJitter adds; zero means 1 s (Google Cloud Storage's
	// 1000 random milliseconds). It is drawn in whole milliseconds, 0 to
	// ⌊AdditiveMax / 1 ms⌋ ms both included, or, below 1 ms, in whole nanoseconds, 0 to
	// AdditiveMax both included. Negative is an error.
	AdditiveMax time.Duration
}

// Strategy is a validated backoff strategy. It is a small immutable value: copy it freely
// and share it between goroutines. The zero Strategy is not valid; [Strategy.Valid] reports
// whether a value came from [New].
type Strategy struct {
	kind        Kind
	jitter      Jitter
	valid       bool
	base, step  time.Duration
	multiplier  float64       // Exponential's growth; exactly 2 takes the integer path
	log2Growth  float64       // log2(multiplier), for the non-doubling path
	max         time.Duration // MaxDelay when uncapped (Constant with zero Max)
	factorMin   float64
	factorSpan  float64 // FactorMax - FactorMin
	additiveMax time.Duration
}

// New validates c and returns the strategy it describes. The error names the bad field, its
// value and what is allowed: a negative duration, a cap below the base, an unknown kind or
// jitter, a Multiplier that is below 1, not finite or set for a kind other than Exponential,
// or a factor range that is upside down, negative or not finite.
func New(c Config) (Strategy, error) {
	if c.Kind > Linear {
		return Strategy{}, fmt.Errorf("backoff: unknown Kind %d: allowed are Exponential, Constant, Linear", c.Kind)
	}
	if c.Jitter > AdditiveJitter {
		return Strategy{}, fmt.Errorf("backoff: unknown Jitter %d: allowed are FullJitter, NoJitter, EqualJitter, DecorrelatedJitter, ProportionalJitter, AdditiveJitter", c.Jitter)
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"Base", c.Base}, {"Step", c.Step}, {"Max", c.Max}, {"AdditiveMax", c.AdditiveMax}} {
		if f.v < 0 {
			return Strategy{}, fmt.Errorf("backoff: %s %v is negative: it must be zero or more", f.name, f.v)
		}
	}
	s := Strategy{kind: c.Kind, jitter: c.Jitter, valid: true, base: c.Base, step: c.Step, max: c.Max,
		additiveMax: c.AdditiveMax}
	if s.step == 0 {
		s.step = s.base
	}
	if err := s.setMultiplier(c); err != nil {
		return Strategy{}, err
	}
	if c.Kind == Constant && c.Max == 0 {
		s.max = MaxDelay
	}
	if s.max < s.base {
		return Strategy{}, fmt.Errorf("backoff: Max %v is below Base %v: the cap must be at least the base", c.Max, c.Base)
	}
	if s.additiveMax == 0 {
		s.additiveMax = time.Second
	}
	lo, hi := c.FactorMin, c.FactorMax
	if lo == 0 && hi == 0 {
		lo, hi = 0.5, 1.5
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo < 0 || hi < lo {
		return Strategy{}, fmt.Errorf("backoff: factor range [%v, %v] is invalid: it must satisfy 0 <= FactorMin <= FactorMax, both finite", c.FactorMin, c.FactorMax)
	}
	s.factorMin, s.factorSpan = lo, hi-lo
	return s, nil
}

// Valid reports whether s came from [New]. The zero Strategy is not valid; the retry package
// replaces it with its default.
func (s Strategy) Valid() bool { return s.valid }

// Kind returns the strategy's growth kind.
func (s Strategy) Kind() Kind { return s.kind }

// Jitter returns the strategy's jitter kind.
func (s Strategy) Jitter() Jitter { return s.jitter }

// Multiplier returns Exponential's growth per retry (2 unless [Config.Multiplier] said
// otherwise), or 0 for Constant and Linear, which do not multiply.
func (s Strategy) Multiplier() float64 { return s.multiplier }

// Ceiling returns the wait ceiling before retry n (n = 0 is the first retry), before jitter:
// Base for Constant, Base + n × Step for Linear, Base × Multiplier^n for Exponential, each
// capped at Max. A negative n is treated as 0. The result never overflows and never
// decreases as n grows.
func (s Strategy) Ceiling(n int) time.Duration {
	if n < 0 {
		n = 0
	}
	var c time.Duration
	switch s.kind {
	case Constant:
		c = s.base
	case Linear:
		c = addSaturating(s.base, mulSaturating(s.step, n))
	case Exponential:
		if s.multiplier == 2 {
			c = shiftSaturating(s.base, n)
		} else {
			c = growSaturating(s.base, s.log2Growth, n)
		}
	}
	return min(c, s.max)
}

// String describes the strategy, for logs and the command line's plan, e.g.
// "exponential base=500ms multiplier=2 max=8s jitter=none".
func (s Strategy) String() string {
	if !s.valid {
		return "invalid backoff strategy"
	}
	out := fmt.Sprintf("%s base=%v", s.kind, s.base)
	switch s.kind {
	case Linear:
		out += fmt.Sprintf(" step=%v", s.step)
	case Exponential:
		out += " multiplier=" + strconv.FormatFloat(s.multiplier, 'g', -1, 64)
	}
	if s.max != MaxDelay {
		out += fmt.Sprintf(" max=%v", s.max)
	}
	out += " jitter=" + s.jitter.String()
	switch s.jitter {
	case ProportionalJitter:
		out += fmt.Sprintf(" factor=[%v,%v]", s.factorMin, s.factorMin+s.factorSpan)
	case AdditiveJitter:
		out += fmt.Sprintf(" additive_max=%v", s.additiveMax)
	}
	return out
}

func addSaturating(a, b time.Duration) time.Duration {
	if a > MaxDelay-b {
		return MaxDelay
	}
	return a + b
}

func mulSaturating(d time.Duration, n int) time.Duration {
	if d == 0 || n == 0 {
		return 0
	}
	if int64(d) > math.MaxInt64/int64(n) {
		return MaxDelay
	}
	return d * time.Duration(n)
}

// shiftSaturating returns d × 2^n, or MaxDelay when that would overflow.
func shiftSaturating(d time.Duration, n int) time.Duration {
	if d == 0 {
		return 0
	}
	if n >= 63 || d > MaxDelay>>uint(n) {
		return MaxDelay
	}
	return d << uint(n)
}
