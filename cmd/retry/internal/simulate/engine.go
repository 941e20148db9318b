package simulate

import (
	"container/heap"
	"fmt"
	"time"
)

// epoch is virtual time zero. Only differences of times matter; a fixed date keeps
// every run identical.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// maxEvents bounds one simulation run, so that a model error can never loop forever.
const maxEvents = 20_000_000

// sim is a discrete-event simulator: virtual time only moves when the next event of the
// priority queue is taken, so a run is deterministic and takes no real time to wait.
type sim struct {
	now    time.Duration // virtual time since epoch
	seq    uint64        // tie-breaker: events at the same time run in the order scheduled
	queue  eventQueue
	events int
	err    error // the first failure of the model; it ends the run
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
	heap.Push(&s.queue, event{at: s.now + max(d, 0), seq: s.seq, fn: fn})
}

// clock returns the current virtual time as a time.Time, for retry.State.
func (s *sim) clock() time.Time { return epoch.Add(s.now) }

// run takes events in time order until none is left.
func (s *sim) run() error {
	for s.queue.Len() > 0 && s.err == nil {
		if s.events++; s.events > maxEvents {
			return fmt.Errorf("simulate: run exceeded %d events at t=%v: the model does not settle", maxEvents, s.now)
		}
		e := heap.Pop(&s.queue).(event)
		s.now = e.at
		e.fn()
	}
	return s.err
}

type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	return q[i].at < q[j].at || (q[i].at == q[j].at && q[i].seq < q[j].seq)
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}
