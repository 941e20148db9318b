package breaker

import "time"

// window counts calls and failures over a sliding time window kept in a ring of
// windowBuckets buckets, each Window/windowBuckets wide. It allocates nothing and is guarded
// by the breaker's lock.
type window struct {
	epoch    time.Time // the start of bucket 0; set at the first call
	newest   int64     // the number of the newest bucket in the ring
	buckets  [windowBuckets]bucket
	calls    int // totals over the ring
	failures int
}

type bucket struct{ calls, failures int }

// add counts a call ending at now and returns the calls and failures of the window, the
// call included.
func (w *window) add(now time.Time, width time.Duration, failed bool) (calls, failures int) {
	if w.epoch.IsZero() {
		w.epoch = now
	}
	n := int64(now.Sub(w.epoch) / (width / windowBuckets))
	if n > w.newest {
		// Drop the buckets that slid out: those numbered newest-9 .. n-10, at most all ten.
		for i := max(w.newest+1, n-windowBuckets+1); i <= n; i++ {
			old := &w.buckets[i%windowBuckets]
			w.calls -= old.calls
			w.failures -= old.failures
			*old = bucket{}
		}
		w.newest = n
	}
	cur := &w.buckets[w.newest%windowBuckets]
	cur.calls++
	w.calls++
	if failed {
		cur.failures++
		w.failures++
	}
	return w.calls, w.failures
}

// reset forgets every call: the window starts again at the next add.
func (w *window) reset() { *w = window{} }
