package backoff

import (
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// configGen draws any configuration, valid or not, with durations from tiny to huge.
func configGen() *rapid.Generator[Config] {
	duration := rapid.OneOf(
		rapid.Int64Range(-10, 10),
		rapid.Int64Range(0, int64(time.Minute)),
		rapid.Int64Range(math.MinInt64, math.MaxInt64),
		rapid.Just(int64(math.MaxInt64)),
	)
	factor := rapid.OneOf(rapid.Float64Range(-1, 3), rapid.Just(0.0), rapid.Just(math.NaN()), rapid.Just(math.Inf(1)))
	multiplier := rapid.OneOf(factor, multiplierGen())
	return rapid.Custom(func(t *rapid.T) Config {
		return Config{
			Kind:        Kind(rapid.IntRange(0, 3).Draw(t, "kind")),
			Jitter:      Jitter(rapid.IntRange(0, 6).Draw(t, "jitter")),
			Base:        time.Duration(duration.Draw(t, "base")),
			Step:        time.Duration(duration.Draw(t, "step")),
			Max:         time.Duration(duration.Draw(t, "max")),
			FactorMin:   factor.Draw(t, "factorMin"),
			FactorMax:   factor.Draw(t, "factorMax"),
			AdditiveMax: time.Duration(duration.Draw(t, "additiveMax")),
			Multiplier:  multiplier.Draw(t, "multiplier"),
		}
	})
}

// multiplierGen draws valid multipliers, from just above 1 (where rounding could make a
// ceiling go down) to huge (where it overflows at once).
func multiplierGen() *rapid.Generator[float64] {
	return rapid.OneOf(
		rapid.Just(0.0), rapid.Just(1.0), rapid.Just(1.5), rapid.Just(1.6), rapid.Just(2.0), rapid.Just(2.1),
		rapid.Float64Range(1, 1+1e-9), rapid.Float64Range(1, 1.01), rapid.Float64Range(1, 4),
		rapid.Float64Range(1, math.MaxFloat64),
		rapid.Custom(func(t *rapid.T) float64 { // 1 + a few units in the last place
			return math.Nextafter(1, 2) + float64(rapid.IntRange(0, 8).Draw(t, "ulps"))*0x1p-52
		}),
	)
}

// validConfigGen draws configurations New accepts.
func validConfigGen() *rapid.Generator[Config] {
	return rapid.Custom(func(t *rapid.T) Config {
		base := rapid.Int64Range(0, int64(time.Hour)).Draw(t, "base")
		lo := rapid.Float64Range(0, 2).Draw(t, "factorMin")
		kind := Kind(rapid.IntRange(0, 2).Draw(t, "kind"))
		var multiplier float64
		if kind == Exponential {
			multiplier = multiplierGen().Draw(t, "multiplier")
		}
		return Config{
			Kind:        kind,
			Multiplier:  multiplier,
			Jitter:      Jitter(rapid.IntRange(0, 5).Draw(t, "jitter")),
			Base:        time.Duration(base),
			Step:        time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "step")),
			Max:         time.Duration(base + rapid.Int64Range(0, int64(time.Hour)).Draw(t, "max-base")),
			FactorMin:   lo,
			FactorMax:   lo + rapid.Float64Range(0, 2).Draw(t, "factorSpan"),
			AdditiveMax: time.Duration(rapid.Int64Range(0, int64(time.Minute)).Draw(t, "additiveMax")),
		}
	})
}

var retryNumber = rapid.OneOf(rapid.IntRange(-3, 70), rapid.IntRange(0, 1_000_000_000), rapid.Just(math.MaxInt))

// SPEC R1.7: whatever the configuration, New either refuses it with an error or gives a
// strategy whose ceilings grow monotonically up to the cap and whose every draw lies within
// its bounds, never negative.
func TestPropertyStrategyBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapid.OneOf(configGen(), validConfigGen()).Draw(t, "config")
		s, err := New(c)
		if err != nil {
			if s.Valid() {
				t.Fatalf("New returned a valid strategy with error %v", err)
			}
			return
		}
		n := retryNumber.Draw(t, "n")
		previous := time.Duration(rapid.Int64().Draw(t, "previous"))
		random := rapid.Uint64().Draw(t, "random")

		ceiling := s.Ceiling(n)
		if ceiling < 0 || ceiling > s.max {
			t.Fatalf("Ceiling(%d) = %v, outside [0, %v]", n, ceiling, s.max)
		}
		if n < math.MaxInt && s.Ceiling(n+1) < ceiling {
			t.Fatalf("Ceiling(%d) = %v > Ceiling(%d) = %v", n, ceiling, n+1, s.Ceiling(n+1))
		}
		low, high := s.Bounds(n, previous)
		if low < 0 || high < low {
			t.Fatalf("Bounds(%d, %v) = [%v, %v]", n, previous, low, high)
		}
		wait := s.Delay(n, previous, random)
		if wait < low || wait > high {
			t.Fatalf("Delay(%d, %v, %d) = %v, outside [%v, %v]", n, previous, random, wait, low, high)
		}
		if again := s.Delay(n, previous, random); again != wait {
			t.Fatalf("Delay is not a function of its inputs: %v then %v", wait, again)
		}
	})
}

// SPEC R1.3: the exponential ceiling is exactly min(Max, Base × 2^n), computed here with
// big integers.
func TestPropertyExponentialCeilingExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "base"))
		maxDelay := base + time.Duration(rapid.Int64Range(0, math.MaxInt64-int64(base)).Draw(t, "max-base"))
		n := rapid.IntRange(0, 200).Draw(t, "n")
		s, err := New(Config{Base: base, Max: maxDelay, Jitter: NoJitter})
		if err != nil {
			t.Fatal(err)
		}
		want := new(big.Int).Lsh(big.NewInt(int64(base)), uint(n))
		if want.Cmp(big.NewInt(int64(maxDelay))) > 0 {
			want = big.NewInt(int64(maxDelay))
		}
		if got := s.Ceiling(n); int64(got) != want.Int64() {
			t.Fatalf("Ceiling(%d) = %v, want %v", n, got, time.Duration(want.Int64()))
		}
	})
}

// SPEC R1.5: a seed makes the whole schedule reproducible; different seeds differ.
func TestPropertySeedReproducible(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, err := New(validConfigGen().Draw(t, "config"))
		if err != nil {
			t.Fatal(err)
		}
		seed := rapid.Uint64().Draw(t, "seed")
		a, b := s.Schedule(20, NewSource(seed)), s.Schedule(20, NewSource(seed))
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("seed %d: schedules differ at %d: %v vs %v", seed, i, a, b)
			}
		}
	})
}

// Every jitter kind spreads draws over its range rather than piling them up: over 2000
// seeded draws each quarter of the range receives between 15% and 35% of them.
func TestJitterSpreadsDraws(t *testing.T) {
	for _, j := range []Jitter{FullJitter, EqualJitter, DecorrelatedJitter, ProportionalJitter, AdditiveJitter} {
		s, err := New(Config{Base: time.Second, Max: time.Minute, Jitter: j})
		if err != nil {
			t.Fatal(err)
		}
		src := NewSource(42)
		low, high := s.Bounds(2, 2*time.Second)
		var quarters [4]int
		for range 2000 {
			w := s.Delay(2, 2*time.Second, src.Uint64())
			q := int(float64(w-low) / float64(high-low+1) * 4)
			quarters[q]++
		}
		for q, count := range quarters {
			if count < 300 || count > 700 {
				t.Errorf("%v: quarter %d of [%v, %v] got %d of 2000 draws", j, q, low, high, count)
			}
		}
	}
}

func TestDelayExamples(t *testing.T) {
	tests := []struct {
		name     string
		c        Config
		n        int
		previous time.Duration
		random   uint64
		want     time.Duration
	}{
		{"full jitter, lowest draw", Config{Base: time.Second, Max: time.Minute}, 2, 0, 0, 0},
		{"full jitter, highest draw reaches ceiling", Config{Base: time.Second, Max: time.Minute}, 2, 0, math.MaxUint64, 4 * time.Second},
		{"equal jitter, lowest draw is half", Config{Base: time.Second, Max: time.Minute, Jitter: EqualJitter}, 2, 0, 0, 2 * time.Second},
		{"additive, highest draw adds 1000ms", Config{Base: time.Second, Max: time.Minute, Jitter: AdditiveJitter}, 0, 0, math.MaxUint64, 2 * time.Second},
		{"proportional, lowest draw is half", Config{Base: time.Second, Max: time.Minute, Jitter: ProportionalJitter}, 1, 0, 0, time.Second},
		{"decorrelated starts from base", Config{Base: time.Second, Max: time.Minute, Jitter: DecorrelatedJitter}, 5, 0, math.MaxUint64, 3 * time.Second},
		{"decorrelated grows from previous", Config{Base: time.Second, Max: time.Minute, Jitter: DecorrelatedJitter}, 5, 10 * time.Second, math.MaxUint64, 30 * time.Second},
		{"decorrelated capped", Config{Base: time.Second, Max: time.Minute, Jitter: DecorrelatedJitter}, 5, time.Hour, math.MaxUint64, time.Minute},
		{"exponential at retry 1e9 is the cap", Config{Base: time.Second, Max: time.Minute, Jitter: NoJitter}, 1_000_000_000, 0, 0, time.Minute},
		{"linear at retry 1e9 is the cap", Config{Kind: Linear, Base: time.Second, Max: time.Minute, Jitter: NoJitter}, 1_000_000_000, 0, 0, time.Minute},
		{"linear with its own step", Config{Kind: Linear, Base: time.Second, Step: 500 * time.Millisecond, Max: time.Minute, Jitter: NoJitter}, 2, 0, 0, 2 * time.Second},
		{"constant ignores n", Config{Kind: Constant, Base: 2 * time.Second, Jitter: NoJitter}, 1_000_000_000, 0, 0, 2 * time.Second},
		{"huge proportional saturates", Config{Base: MaxDelay, Max: MaxDelay, Jitter: ProportionalJitter}, 3, 0, math.MaxUint64, MaxDelay},
		{"huge additive saturates", Config{Base: MaxDelay, Max: MaxDelay, Jitter: AdditiveJitter}, 3, 0, math.MaxUint64, MaxDelay},
		{"zero base gives zero waits", Config{Jitter: NoJitter}, 7, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Delay(tt.n, tt.previous, tt.random); got != tt.want {
				t.Errorf("Delay(%d, %v, %#x) = %v, want %v", tt.n, tt.previous, tt.random, got, tt.want)
			}
		})
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		c    Config
		want string
	}{
		{Config{Base: -time.Second, Max: time.Second}, "Base -1s is negative"},
		{Config{Base: time.Second, Max: -1}, "Max -1ns is negative"},
		{Config{Base: time.Second, Step: -time.Second, Max: time.Minute}, "Step -1s is negative"},
		{Config{Base: time.Second, Max: time.Minute, AdditiveMax: -time.Millisecond}, "AdditiveMax -1ms is negative"},
		{Config{Base: 2 * time.Second, Max: time.Second}, "Max 1s is below Base 2s"},
		{Config{Base: time.Second}, "Max 0s is below Base 1s"},
		{Config{Kind: Constant, Base: 2 * time.Second, Max: time.Second}, "Max 1s is below Base 2s"},
		{Config{Base: time.Second, Max: time.Minute, FactorMin: 1.5, FactorMax: 0.5}, "factor range [1.5, 0.5] is invalid"},
		{Config{Base: time.Second, Max: time.Minute, FactorMin: -1, FactorMax: 1}, "factor range [-1, 1] is invalid"},
		{Config{Base: time.Second, Max: time.Minute, FactorMin: 0, FactorMax: math.Inf(1)}, "factor range [0, +Inf] is invalid"},
		{Config{Kind: 9, Base: time.Second, Max: time.Minute}, "unknown Kind 9"},
		{Config{Jitter: 9, Base: time.Second, Max: time.Minute}, "unknown Jitter 9"},
		{Config{Base: time.Second, Max: time.Minute, Multiplier: 0.5}, "Multiplier 0.5 is invalid: it must be a finite number of at least 1 (zero means 2)"},
		{Config{Base: time.Second, Max: time.Minute, Multiplier: -2}, "Multiplier -2 is invalid"},
		{Config{Base: time.Second, Max: time.Minute, Multiplier: math.NaN()}, "Multiplier NaN is invalid"},
		{Config{Base: time.Second, Max: time.Minute, Multiplier: math.Inf(1)}, "Multiplier +Inf is invalid"},
		{Config{Kind: Linear, Base: time.Second, Max: time.Minute, Multiplier: 1.5}, "Multiplier 1.5 is set for linear backoff: only exponential multiplies"},
		{Config{Kind: Constant, Base: time.Second, Multiplier: 2}, "Multiplier 2 is set for constant backoff"},
	}
	for _, tt := range tests {
		_, err := New(tt.c)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want an error containing %q", tt.c, err, tt.want)
		}
	}
}

func TestParseNames(t *testing.T) {
	for _, j := range []Jitter{FullJitter, NoJitter, EqualJitter, DecorrelatedJitter, ProportionalJitter, AdditiveJitter} {
		if got, err := ParseJitter(j.String()); err != nil || got != j {
			t.Errorf("ParseJitter(%q) = %v, %v", j.String(), got, err)
		}
	}
	for _, k := range []Kind{Exponential, Constant, Linear} {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, err)
		}
	}
	if _, err := ParseJitter("fulll"); err == nil || !strings.Contains(err.Error(), `"fulll"`) || !strings.Contains(err.Error(), "decorrelated") {
		t.Errorf("ParseJitter(fulll) error = %v", err)
	}
	if _, err := ParseKind("expo"); err == nil || !strings.Contains(err.Error(), `"expo"`) {
		t.Errorf("ParseKind(expo) error = %v", err)
	}
}

func TestStrategyString(t *testing.T) {
	s, _ := New(Config{Base: 500 * time.Millisecond, Max: 8 * time.Second, Jitter: NoJitter})
	if got, want := s.String(), "exponential base=500ms multiplier=2 max=8s jitter=none"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	s, _ = New(Config{Base: 500 * time.Millisecond, Max: 8 * time.Second, Multiplier: 1.6, Jitter: NoJitter})
	if got, want := s.String(), "exponential base=500ms multiplier=1.6 max=8s jitter=none"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	s, _ = New(Config{Kind: Linear, Base: time.Second, Max: 8 * time.Second, Jitter: NoJitter})
	if got, want := s.String(), "linear base=1s step=1s max=8s jitter=none"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func FuzzNew(f *testing.F) {
	f.Add(uint8(0), uint8(0), int64(time.Second), int64(0), int64(time.Minute), 0.0, 0.0, int64(0), 3, int64(0), uint64(1), 0.0)
	f.Add(uint8(2), uint8(3), int64(1), int64(math.MaxInt64), int64(math.MaxInt64), 0.5, 1.5, int64(7), 1_000_000_000, int64(math.MaxInt64), uint64(math.MaxUint64), 0.0)
	f.Add(uint8(0), uint8(4), int64(3), int64(0), int64(math.MaxInt64), 0.9, 1.1, int64(0), 40, int64(0), uint64(1)<<63, 1.6)
	f.Fuzz(func(t *testing.T, kind, jitter uint8, base, step, maxDelay int64, fmin, fmax float64, additive int64, n int, previous int64, random uint64, multiplier float64) {
		s, err := New(Config{Kind: Kind(kind), Jitter: Jitter(jitter), Base: time.Duration(base), Step: time.Duration(step),
			Max: time.Duration(maxDelay), FactorMin: fmin, FactorMax: fmax, AdditiveMax: time.Duration(additive), Multiplier: multiplier})
		if err != nil {
			return
		}
		low, high := s.Bounds(n, time.Duration(previous))
		w := s.Delay(n, time.Duration(previous), random)
		if w < 0 || w < low || w > high {
			t.Fatalf("Delay = %v outside [%v, %v] (min 0)", w, low, high)
		}
		if n >= 0 && n < math.MaxInt && s.Ceiling(n+1) < s.Ceiling(n) {
			t.Fatalf("Ceiling(%d) = %v > Ceiling(%d) = %v", n, s.Ceiling(n), n+1, s.Ceiling(n+1))
		}
		_ = s.String()
	})
}
