package backoff

import (
	"math"
	"testing"
	"time"
)

// The published test tables of peer libraries, their inputs and expected values run
// against this package (issue 16). Where a peer draws randomness as a float in [0, 1), the
// draw r is passed here as the 64-bit number r × 2^64.

func drawOf(r float64) uint64 {
	if r >= 1 {
		return math.MaxUint64
	}
	return uint64(r * 0x1p64)
}

// cenkalti/backoff exponential_test.go TestBackOff: 500 ms doubling to a 5 s cap, each wait
// within ±10 % of its interval (RandomizationFactor 0.1: ProportionalJitter [0.9, 1.1]).
// 10 rows.
func TestPeerCenkaltiBackOff(t *testing.T) {
	s, err := New(Config{Base: 500 * time.Millisecond, Multiplier: 2, Max: 5 * time.Second,
		Jitter: ProportionalJitter, FactorMin: 0.9, FactorMax: 1.1})
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{500, 1000, 2000, 4000, 5000, 5000, 5000, 5000, 5000, 5000}
	for n, ms := range want {
		expected := ms * time.Millisecond
		if got := s.Ceiling(n); got != expected {
			t.Errorf("Ceiling(%d) = %v, want %v", n, got, expected)
		}
		minInterval := expected - time.Duration(0.1*float64(expected))
		maxInterval := expected + time.Duration(0.1*float64(expected))
		if low, high := s.Bounds(n, 0); low < minInterval || high > maxInterval {
			t.Errorf("Bounds(%d) = [%v, %v], want within [%v, %v]", n, low, high, minInterval, maxInterval)
		}
	}
}

// cenkalti/backoff TestGetRandomizedInterval: randomization 0.5 around 2 gives 1, 2 or 3,
// a third of the draws each. 6 rows.
func TestPeerCenkaltiRandomizedInterval(t *testing.T) {
	s, err := New(Config{Kind: Constant, Base: 2, Jitter: ProportionalJitter, FactorMin: 0.5, FactorMax: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		random float64
		want   time.Duration
	}{{0, 1}, {0.33, 1}, {0.34, 2}, {0.66, 2}, {0.67, 3}, {0.99, 3}} {
		if got := s.Delay(0, 0, drawOf(c.random)); got != c.want {
			t.Errorf("draw %v: Delay = %d, want %d", c.random, got, c.want)
		}
	}
}

// cenkalti/backoff TestBackOffOverflow: MaxInt64/2 grown by 2.1 saturates at the cap,
// MaxInt64. 1 row.
func TestPeerCenkaltiOverflow(t *testing.T) {
	s, err := New(Config{Base: math.MaxInt64 / 2, Multiplier: 2.1, Max: math.MaxInt64, Jitter: NoJitter})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Ceiling(1); got != math.MaxInt64 {
		t.Errorf("Ceiling(1) = %d, want %d", got, int64(math.MaxInt64))
	}
}

// hashicorp/go-retryablehttp client_test.go TestBackoff: DefaultBackoff(1 s, 5 min, i) is
// 1 s × 2^i capped at 5 min. 6 rows.
func TestPeerRetryablehttpBackoff(t *testing.T) {
	s, err := New(Config{Base: time.Second, Max: 5 * time.Minute, Jitter: NoJitter})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i    int
		want time.Duration
	}{{0, time.Second}, {1, 2 * time.Second}, {2, 4 * time.Second}, {3, 8 * time.Second}, {63, 5 * time.Minute}, {128, 5 * time.Minute}} {
		if got := s.Ceiling(c.i); got != c.want {
			t.Errorf("Ceiling(%d) = %v, want %v", c.i, got, c.want)
		}
	}
}

// urllib3 test_retry.py test_backoff: backoff_factor 0.2 waits 0 before the first retry,
// then 0.4, 0.8, 1.6 s, and DEFAULT_BACKOFF_MAX (120 s) after 14 errors. This package has
// no zero first wait: its retry n is urllib3's retry n+1. 4 rows.
func TestPeerUrllib3Backoff(t *testing.T) {
	s, err := New(Config{Base: 400 * time.Millisecond, Max: 120 * time.Second, Jitter: NoJitter})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n    int
		want time.Duration
	}{{0, 400 * time.Millisecond}, {1, 800 * time.Millisecond}, {2, 1600 * time.Millisecond}, {12, 120 * time.Second}} {
		if got := s.Ceiling(c.n); got != c.want {
			t.Errorf("Ceiling(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

// aws-sdk-go-v2 aws/retry jitter_backoff_test.go TestExponentialJitterBackoff_AttemptDelay:
// full jitter under min(2^attempt s, 20 s). The SDK draws a float and truncates to the
// nanosecond; this package draws whole nanoseconds in a closed range, so the two agree to
// within 1 ns. 4 rows.
func TestPeerAWSExponentialJitter(t *testing.T) {
	s, err := New(Config{Base: time.Second, Max: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	maxB := 1 - 1/float64(1<<53)
	seconds := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	for _, c := range []struct {
		name    string
		random  float64
		attempt int
		want    time.Duration
	}{
		{"min delay floor", 0, 1, 0},
		{"min delay ceiling", maxB, 1, seconds(maxB * 2)},
		{"attempt delay", 0.5, 2, seconds(0.5 * 4)},
		{"max delay", maxB, 10, seconds(maxB * math.Exp2(math.Log2(20)))},
	} {
		got := s.Delay(c.attempt, 0, drawOf(c.random))
		if d := got - c.want; d < -1 || d > 1 {
			t.Errorf("%s: Delay = %v, want %v within 1 ns", c.name, got, c.want)
		}
	}
}
