package breaker

import "time"

// Reset returns the breaker to CLOSED in a new generation with nothing counted (no failures,
// no failure-rate window, no trial calls, no openings in a row): as if made anew by New, except that the results
// of calls admitted before the reset are ignored, as for any earlier state (their tokens
// belong to an earlier generation). OnStateChange sees the change when the breaker was not
// CLOSED. Package fleet resets its local breakers so when the fleet closes. Safe for
// concurrent use.
func (b *Breaker) Reset() {
	b.mu.Lock()
	w := b.word.Load()
	// In CLOSED, Done changes the failure count without the lock: hence the swap loop.
	for !b.word.CompareAndSwap(w, b.nextWord(w, StateClosed)) {
		w = b.word.Load()
	}
	b.trials, b.lastTrial, b.successes = b.trials[:0], 0, 0
	b.rate.Reset()
	b.openUntil = time.Time{}
	b.openings, b.openFor, b.closedAt = 0, 0, time.Time{}
	var ev event
	if from := stateOf(w); from != StateClosed {
		ev = event{from, StateClosed, time.Now()}
	}
	b.mu.Unlock()
	b.emit(ev)
}
