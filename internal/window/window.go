// Package window counts two kinds of events over a sliding time window, kept in a ring of
// Buckets buckets: an event counts for between (Buckets-1)/Buckets of the window and the
// whole window. The circuit breaker counts calls and failures with it, the retry budget
// requests and retries. It allocates nothing and is not safe for concurrent use: its owner
// guards it.
package window

import "time"

// Buckets is how many buckets a window has.
const Buckets = 10

// Window is a sliding window of two counters. The zero Window is empty and ready to use.
type Window struct {
	epoch  time.Time // the start of bucket 0; set by Start
	newest int64     // the number of the newest bucket in the ring
	ring   [Buckets][2]int64
	total  [2]int64 // the sums over the ring
}

// Start sets the window's epoch to now unless it has one: the first bucket begins there.
func (w *Window) Start(now time.Time) {
	if w.epoch.IsZero() {
		w.epoch = now
	}
}

// Epoch returns the start of the first bucket (the zero Time before Start).
func (w *Window) Epoch() time.Time { return w.epoch }

// Advance slides the window to elapsed after the epoch, the window being width wide, and
// drops the buckets that left it. A width below Buckets nanoseconds counts as Buckets.
func (w *Window) Advance(elapsed, width time.Duration) {
	n := int64(elapsed / max(width/Buckets, 1))
	if n <= w.newest {
		return
	}
	for i := max(w.newest+1, n-Buckets+1); i <= n; i++ { // at most every bucket once
		old := &w.ring[i%Buckets]
		w.total[0] -= old[0]
		w.total[1] -= old[1]
		*old = [2]int64{}
	}
	w.newest = n
}

// Add counts one event of kind k (0 or 1) in the newest bucket.
func (w *Window) Add(k int) {
	w.ring[w.newest%Buckets][k]++
	w.total[k]++
}

// Total returns the events of kind k in the window.
func (w *Window) Total(k int) int64 { return w.total[k] }

// Reset forgets every event and the epoch: the window starts again at the next Start.
func (w *Window) Reset() { *w = Window{} }

// AddN counts n events of kind k (0 or 1) in the newest bucket.
func (w *Window) AddN(k int, n int64) {
	w.ring[w.newest%Buckets][k] += n
	w.total[k] += n
}
