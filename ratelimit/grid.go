package ratelimit

import (
	"math"
	"math/bits"
	"time"
)

// releaseShare is how much of a window its quota is released over once it is back: the
// first window/releaseShare, a tenth (see the package doc).
const releaseShare = 10

// grid numbers the units of a quota's windows from its reset on, so that a schedule can
// hold them: window k starts at anchor + k·window, and position p is unit p mod limit of
// window p / limit, released at that window's start plus (p mod limit)·release/limit,
// release being window/releaseShare. So each window's limit units are released evenly over
// its first tenth, and every window in the same pattern. The zero grid numbers nothing.
type grid struct {
	anchor time.Time
	window time.Duration
	limit  int64
}

// usable reports whether g numbers anything: a window and a limit known.
func (g grid) usable() bool { return g.window > 0 && g.limit > 0 }

// release is the span of each window its units are released over.
func (g grid) release() time.Duration { return max(g.window/releaseShare, 1) }

// at returns when position p is released.
func (g grid) at(p int64) time.Time {
	k, a := p/g.limit, p%g.limit
	return g.anchor.Add(time.Duration(k)*g.window + time.Duration(mulDiv(uint64(a), uint64(g.release()), uint64(g.limit))))
}

// first returns the first position released at t or later, and the window t falls in; t
// must not be before the anchor. ok is false when t is too far from the anchor for the
// positions of its window and the next two to be numbered.
func (g grid) first(t time.Time) (p, k int64, ok bool) {
	since := t.Sub(g.anchor)
	if since > math.MaxInt64-3*g.window {
		return 0, 0, false
	}
	k = int64(since / g.window)
	if k > math.MaxInt64/g.limit-3 {
		return 0, 0, false
	}
	switch o := since - time.Duration(k)*g.window; {
	case o == 0:
		return k * g.limit, k, true
	case o >= g.release():
		return (k + 1) * g.limit, k, true
	default: // the first unit a with a·release/limit ≥ o: a = ⌈o·limit/release⌉ ≤ limit
		hi, lo := bits.Mul64(uint64(o), uint64(g.limit))
		a, rem := bits.Div64(hi, lo, uint64(g.release())) // hi < release, as o < release
		if rem > 0 {
			a++
		}
		return k*g.limit + int64(a), k, true
	}
}

// mulDiv returns a·b/c, rounded down, for a < c, without overflow.
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	q, _ := bits.Div64(hi, lo, c) // hi < c, as a < c
	return q
}
