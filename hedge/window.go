package hedge

import (
	"math"
	"math/bits"
	"time"
)

// The latency histogram's buckets: exact below 16 µs, then 16 a doubling (a bucket spans at
// most 1/16 of its values, 6 %), up to 2^36 µs (19 hours); longer latencies share the last.
const (
	subBits  = 4
	sub      = 1 << subBits
	nBuckets = sub * 34
	nGens    = 4 // the window forgets a quarter at a time
)

// bucketOf returns the bucket of latency d.
func bucketOf(d time.Duration) int {
	us := uint64(max(d, 0) / time.Microsecond)
	if us < sub {
		return int(us)
	}
	e := bits.Len64(us) - 1 - subBits // us>>e is in [16, 32)
	return min(sub*(e+1)+int(us>>e)-sub, nBuckets-1)
}

// upperBound returns the least latency above every one of bucket i.
func upperBound(i int) time.Duration {
	if i < sub {
		return time.Duration(i+1) * time.Microsecond
	}
	e, m := i/sub-1, uint64(i%sub+sub)
	us := (m + 1) << e
	if us > math.MaxInt64/uint64(time.Microsecond) {
		return math.MaxInt64
	}
	return time.Duration(us) * time.Microsecond
}

// latencyWindow is a histogram of the last latencies, in nGens generations of genSize: it
// reads between (nGens−1) × genSize and nGens × genSize of them. Not safe for concurrent
// use.
type latencyWindow struct {
	counts  [nGens][nBuckets]uint16
	sizes   [nGens]int
	current int // the generation being filled
	genSize int
}

// add counts latency d, forgetting the oldest generation when the current one is full.
func (w *latencyWindow) add(d time.Duration) {
	if w.sizes[w.current] >= w.genSize {
		w.current = (w.current + 1) % nGens
		w.counts[w.current] = [nBuckets]uint16{}
		w.sizes[w.current] = 0
	}
	w.counts[w.current][bucketOf(d)]++
	w.sizes[w.current]++
}

// len returns how many latencies the window holds.
func (w *latencyWindow) len() int {
	n := 0
	for _, s := range w.sizes {
		n += s
	}
	return n
}

// percentile returns the least bucket bound that at least share q of the window's
// latencies lie below; ok is false when the window is empty.
func (w *latencyWindow) percentile(q float64) (d time.Duration, ok bool) {
	n := w.len()
	if n == 0 {
		return 0, false
	}
	rank := int(math.Ceil(q * float64(n))) // the rank-th smallest latency, counted from 1
	seen := 0
	for i := range nBuckets {
		for g := range nGens {
			seen += int(w.counts[g][i])
		}
		if seen >= rank {
			return upperBound(i), true
		}
	}
	return upperBound(nBuckets - 1), true
}
