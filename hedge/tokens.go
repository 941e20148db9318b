package hedge

import "sync/atomic"

// tokens is the hedge budget: a bucket of thousandths of a token, to which every attempt
// adds its share and from which every hedge takes a whole token. It reads no clock.
type tokens struct {
	milli    atomic.Int64
	deposit  int64 // per attempt
	capacity int64
}

// newTokens returns a full bucket for a share of attempts.
func newTokens(share float64) *tokens {
	t := &tokens{deposit: int64(share*1000 + 0.5)}
	t.capacity = max(1000, t.deposit*budgetBurst)
	t.milli.Store(t.capacity)
	return t
}

// add adds an attempt's share, never beyond the capacity.
func (t *tokens) add() {
	for {
		old := t.milli.Load()
		next := min(old+t.deposit, t.capacity)
		if next == old || t.milli.CompareAndSwap(old, next) {
			return
		}
	}
}

// allows reports whether a whole token is there.
func (t *tokens) allows() bool { return t.milli.Load() >= 1000 }

// take takes a token. Loops that asked at the same moment may take the bucket below zero
// by a few tokens; the attempts that follow refill it.
func (t *tokens) take() { t.milli.Add(-1000) }
