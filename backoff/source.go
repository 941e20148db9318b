package backoff

import (
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// Source supplies uniformly distributed 64-bit numbers for jitter. Implementations used by
// more than one goroutine must be safe for concurrent use; *math/rand/v2.Rand is not, so wrap
// it or use [NewSource].
type Source interface {
	Uint64() uint64
}

// GlobalSource draws from math/rand/v2's package-level generator: safe for concurrent use,
// seeded randomly at start-up, never reproducible. It is what a nil Source means throughout
// this module.
var GlobalSource Source = globalSource{}

type globalSource struct{}

func (globalSource) Uint64() uint64 { return rand.Uint64() }

// SeededSource is a reproducible [Source]: the same seed gives the same sequence.
// It is safe for concurrent use and never blocks (one atomic add a draw); draws made by
// several goroutines at once interleave, so only a single goroutine's sequence is
// reproducible. Give each simulated client its own seed rather than sharing one.
type SeededSource struct {
	state atomic.Uint64
}

// NewSource returns a [SeededSource] starting at seed. It uses SplitMix64, which is fast and
// statistically sound for jitter; it is not a cryptographic generator.
func NewSource(seed uint64) *SeededSource {
	s := new(SeededSource)
	s.state.Store(seed)
	return s
}

// Uint64 returns the next number of the sequence.
func (s *SeededSource) Uint64() uint64 {
	z := s.state.Add(0x9e3779b97f4a7c15)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Schedule returns the waits before the first retries retries, drawn in order from src (nil
// means [GlobalSource]), each draw seeing the previous wait as [Strategy.Delay] does. It is
// what a retry loop that retries every time would wait; the command line's plan prints it.
func (s Strategy) Schedule(retries int, src Source) []time.Duration {
	if src == nil {
		src = GlobalSource
	}
	waits := make([]time.Duration, 0, max(retries, 0))
	var previous time.Duration
	for n := range retries {
		previous = s.Delay(n, previous, src.Uint64())
		waits = append(waits, previous)
	}
	return waits
}
