package ratelimit

import (
	"sync/atomic"
	"time"
)

// The measured send rate, as AWS's adaptive retry mode measures it: the responses of each
// half second, smoothed with a weight of 0.8 for the newest half second.
const (
	rateSmoothing = 0.8
	countBits     = 24
	countMask     = 1<<countBits - 1
	halfBias      = 1 << 39 // keeps every representable time's half second positive in 40 bits
)

// sendRate measures the rate of the responses the gate is told of. Counting a response in
// the current half second is lock-free, so that the fast path stays free of locks; closing
// a half second, at most twice a second, is done under the gate's lock.
type sendRate struct {
	word atomic.Uint64 // the current half second (biased) << countBits | responses counted in it; 0 before the first
	rate float64       // responses per second, smoothed; guarded by the gate's lock
}

// halfSecond numbers the half second of t.
func halfSecond(t time.Time) uint64 {
	return uint64(t.Unix()*2 + int64(t.Nanosecond()/5e8) + halfBias)
}

// add counts a response at now, lock-free, and reports true; or reports false, counting
// nothing, when now starts a half second: the caller then counts it with roll under the
// gate's lock.
func (c *sendRate) add(now time.Time) bool {
	b := halfSecond(now)
	for {
		w := c.word.Load()
		if w == 0 || b > w>>countBits {
			return false
		}
		if w&countMask == countMask || c.word.CompareAndSwap(w, w+1) { // a full count stays full
			return true
		}
	}
}

// roll counts a response at now that add could not, closing the half seconds that ended:
// their responses per second weigh rateSmoothing in the new rate. Called with the gate's
// lock held.
func (c *sendRate) roll(now time.Time) {
	b := halfSecond(now)
	for {
		w := c.word.Load()
		cur, n := w>>countBits, w&countMask
		switch {
		case w == 0:
			if c.word.CompareAndSwap(0, b<<countBits|1) {
				return
			}
		case b <= cur: // another caller closed it first
			if n == countMask || c.word.CompareAndSwap(w, w+1) {
				return
			}
		case c.word.CompareAndSwap(w, b<<countBits):
			current := float64(n+1) / (float64(b-cur) / 2)
			c.rate = current*rateSmoothing + c.rate*(1-rateSmoothing)
			return
		}
	}
}
