package simulate

import (
	"fmt"
	"time"
)

// epoch is virtual time zero. Only differences of times matter; a fixed date keeps
// every run identical.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// maxEvents bounds one simulation run, so that a model error can never loop forever; a
// scenario whose size calls for more sets sim.limit.
const maxEvents = 20_000_000

// sim is a discrete-event simulator: virtual time only moves when the next event of the
// priority queue is taken, so a run is deterministic and takes no real time to wait.
type sim struct {
	now    time.Duration // virtual time since epoch
	seq    uint64        // tie-breaker: events at the same time run in the order scheduled
	queue  eventQueue
	events int64
	limit  int64 // the most events of this run when above maxEvents; below it (0), maxEvents
	// freeRuns are loop runs whose loop has stopped, kept for reuse (see startLoop).
	freeRuns []*loopRun
	err      error // the first failure of the model; it ends the run
}

// fail ends the run with err, unless it has failed already.
func (s *sim) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

type event struct {
	at  time.Duration
	seq uint64
	fn  func()
}

// after schedules fn to run d from now (d < 0 counts as 0).
func (s *sim) after(d time.Duration, fn func()) {
	s.seq++
	s.queue.push(event{at: s.now + max(d, 0), seq: s.seq, fn: fn})
}

// clock returns the current virtual time as a time.Time, for retry.State.
func (s *sim) clock() time.Time { return epoch.Add(s.now) }

// run takes events in time order until none is left.
func (s *sim) run() error {
	for len(s.queue) > 0 && s.err == nil {
		if s.events++; s.events > max(s.limit, maxEvents) {
			return fmt.Errorf("simulate: run exceeded %d events at t=%v: the model does not settle", max(s.limit, maxEvents), s.now)
		}
		e := s.queue.pop()
		s.now = e.at
		e.fn()
	}
	return s.err
}

// eventQueue is a 4-ary min-heap of events by time, then by order of scheduling. It is
// written for the event type (container/heap would box every event in an interface, one
// allocation per push and per pop); four children a node halve the levels a pop walks, and
// moving a hole instead of swapping halves the writes, each of which the garbage collector
// may have to see (an event holds a function).
type eventQueue []event

// before reports whether a comes before b.
func before(a, b *event) bool { return a.at < b.at || (a.at == b.at && a.seq < b.seq) }

func (q *eventQueue) push(e event) {
	*q = append(*q, e)
	h := *q
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 4
		if !before(&e, &h[parent]) {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = e
}

func (q *eventQueue) pop() event {
	h := *q
	first := h[0]
	last := len(h) - 1
	e := h[last]
	h[last] = event{} // drop the function, so that it can be collected
	h = h[:last]
	if last > 0 {
		i := 0
		for {
			child := 4*i + 1
			if child >= last {
				break
			}
			least := child
			for c := child + 1; c < min(child+4, last); c++ {
				if before(&h[c], &h[least]) {
					least = c
				}
			}
			if !before(&h[least], &e) {
				break
			}
			h[i] = h[least]
			i = least
		}
		h[i] = e
	}
	*q = h
	return first
}
