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
// its first tenth, and every window in the same pattern. For a part of a quota shared by a
// fleet, window k holds count(k) of them, its first. The zero grid numbers nothing.
type grid struct {
	anchor time.Time
	window time.Duration
	limit  int64 // positions a window: the most count gives
	part   Part  // the part of the quota released (not whole: see count)
	full   int64 // the quota's limit, of which part is released
}

// goldenTurn is how far each window turns the places of a quota's units, as a fraction of
// a unit: the golden ratio's fraction, whose multiples spread over [0, 1) the most evenly.
const goldenTurn = 0.6180339887498949

// count returns how many of window k's positions release units: the limit; for a part,
// the quota's units of the window whose places fall in the part, the places j + turn(k)
// (j whole), as a fraction of the quota's limit. Parts that tile [0, 1) so release between
// them exactly the quota's limit in every window, and each part its size of it on average,
// however small, as evenly as the turns spread: a part of a tenth of a unit releases one
// in a window out of ten (see the package doc).
func (g grid) count(k int64) int64 {
	if g.part.whole() {
		return g.limit
	}
	turn, f := g.turn(k), float64(g.full)
	n := int64(math.Ceil(f*g.part.To-turn) - math.Ceil(f*g.part.From-turn))
	return min(max(n, 0), g.limit)
}

// turn is window k's turn of its units' places, in [0, 1): a function of the window's
// start in Unix time, so that the replicas of a fleet, whose grids start at resets read
// some milliseconds apart, turn a window alike but for as many thousandths of a unit;
// consecutive windows turn by goldenTurn more.
func (g grid) turn(k int64) float64 {
	start := g.anchor.Add(time.Duration(k) * g.window)
	_, turn := math.Modf(float64(start.UnixNano()) / float64(g.window) * goldenTurn)
	if turn < 0 {
		turn++
	}
	return turn
}

// released returns how many of window k's positions release units: count(k); for a part
// too small to release a unit in maxEmptyWindows windows in a row, one in the last window
// of each run of maxEmptyWindows of the grid.
func (g grid) released(k int64) int64 {
	if n := g.count(k); n > 0 || (k+1)%maxEmptyWindows != 0 {
		return n
	}
	return 1
}

// maxEmptyWindows is how many windows in a row may release none of a part of a quota,
// smaller than a unit, that the fleet gave this replica (see released).
const maxEmptyWindows = 100

// end returns the end of window k's positions that release units: k·limit + released(k).
func (g grid) end(k int64) int64 { return k*g.limit + g.released(k) }

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
