package ratelimit

import (
	"container/heap"
	"testing"
	"time"

	"github.com/retrykit/retry"
)

// events is a discrete-event clock: actions run in time order (then in order of
// scheduling), on virtual time.
type events struct {
	now  time.Time
	seq  int
	heap eventHeap
}

type event struct {
	at  time.Time
	seq int
	run func()
}

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func (e *events) at(t time.Time, run func()) {
	e.seq++
	heap.Push(&e.heap, event{at: t, seq: e.seq, run: run})
}

// runUntil runs the events up to end, a bound on the simulation.
func (e *events) runUntil(end time.Time) {
	for e.heap.Len() > 0 {
		ev := heap.Pop(&e.heap).(event)
		if ev.at.After(end) {
			return
		}
		e.now = ev.at
		ev.run()
	}
}

// fixedWindowServer admits limit requests per fixed window, the windows starting at start,
// and answers every request with OpenAI's request headers as Readings: the remaining after
// it, and the time to the window's end.
type fixedWindowServer struct {
	start  time.Time
	window time.Duration
	limit  int64
	index  int64 // the current window
	count  int64 // requests admitted in it
}

func (s *fixedWindowServer) handle(t time.Time) (ok bool, r Reading) {
	k := int64(t.Sub(s.start) / s.window)
	if k != s.index {
		s.index, s.count = k, 0
	}
	end := s.start.Add(time.Duration(k+1) * s.window)
	if s.count < s.limit {
		s.count++
		ok = true
	}
	return ok, Reading{Quota: "requests", Limit: s.limit, Remaining: s.limit - s.count, Reset: end.Sub(t), From: "x-ratelimit-remaining-requests"}
}

type burstResult struct {
	successes, sent, refused int
	finish                   time.Duration // from the start to the last success's answer
}

// runBurst starts callers at once against server, each sending one request until it
// succeeds, with latency each way. After a 429 a caller asks to send again after the
// server's wait (the reset it read), as the retry loop does. With a gate, every attempt
// reserves its time first (asking again while the first-contact probe is in flight), and
// every answer goes to Observe and Done.
func runBurst(gate *Gate, server *fixedWindowServer, callers int, latency time.Duration) burstResult {
	ev := &events{now: server.start}
	var res burstResult
	var ask func(notBefore time.Time)
	send := func(at time.Time, token uint64) {
		ev.at(at, func() {
			res.sent++
			ev.at(ev.now.Add(latency), func() {
				ok, reading := server.handle(ev.now)
				ev.at(ev.now.Add(latency), func() {
					result, wait := retry.ResultSuccess, time.Duration(0)
					if !ok {
						result, wait = retry.ResultThrottled, reading.Reset
					}
					if gate != nil {
						gate.Observe(ev.now, []Reading{reading})
						gate.Done(token, ev.now, result, wait)
					}
					if ok {
						res.successes++
						res.finish = ev.now.Sub(server.start)
						return
					}
					res.refused++
					ask(ev.now.Add(wait))
				})
			})
		})
	}
	ask = func(notBefore time.Time) {
		ev.at(later(ev.now, notBefore), func() {
			if gate == nil {
				send(ev.now, 0)
				return
			}
			at, token := gate.Reserve(ev.now, notBefore)
			if token == 0 && at.After(notBefore) {
				ask(at) // the probe is in flight: ask again then
				return
			}
			send(at, token)
		})
	}
	for range callers {
		ask(server.start)
	}
	ev.runUntil(server.start.Add(time.Minute))
	return res
}

// Issue 32's scenario, on virtual time: 200 callers at once against a server that admits
// 50 requests per fixed 1 s window and tells its count on every answer, 5 ms each way.
// With the gate (first-contact probe on), all 200 succeed within 4.5 s (the limit allows
// exactly 200 in 4 windows) and no request is refused; without it, callers that retry
// after the server's wait are refused 300 times and storm every window.
func TestBurstAgainstFixedWindow(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	newServer := func() *fixedWindowServer {
		return &fixedWindowServer{start: start, window: time.Second, limit: 50}
	}
	gate, err := NewGate(Config{ProbeWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	with := runBurst(gate, newServer(), 200, 5*time.Millisecond)
	t.Logf("with the gate: %+v", with)
	if with.successes != 200 || with.refused > 10 || with.finish > 4500*time.Millisecond {
		t.Errorf("with the gate: %d of 200 succeeded, %d refused, last at %v; want 200, at most 10, within 4.5s",
			with.successes, with.refused, with.finish)
	}
	without := runBurst(nil, newServer(), 200, 5*time.Millisecond)
	t.Logf("without: %+v", without)
}
