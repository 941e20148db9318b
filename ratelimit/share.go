package ratelimit

import (
	"math"
	"time"
)

// QuotaView is what a gate knows of one of its destination's quotas, in the form it shares
// it with the other processes that call the destination under the same quota (package
// fleet's rate gate): see [Gate.Snapshot] and [Gate.Share].
type QuotaView struct {
	// Quota names the quota, as Reading.Quota.
	Quota string
	// Limit is the quota's size in units per window, as a server said it or as estimated
	// from the remaining seen; 0 when unknown.
	Limit int64
	// Window is the length of the quota's window, as a server said it or as estimated from
	// the resets seen; 0 when unknown.
	Window time.Duration
	// Remaining is what the server had left of the current window when it last said, in the
	// freshest reading; negative when no current window is known.
	Remaining int64
	// Reset is when the current window ends; the zero Time when none is known.
	Reset time.Time
}

// Part is the part of each of a destination's quotas that a gate keeps to when it shares
// them with other processes (package fleet gives each replica its part). Of the n units
// the processes' shared view says are left before a reset (Gate.Share), it admits those
// whose place, counted as a fraction of n, falls in [From, To): ⌈n·To⌉ − ⌈n·From⌉. Parts
// [a, b) and [b, c) with the same b hold no unit twice, so gates whose parts tile [0, 1)
// admit no more than is left between them. Of a window the gate reads itself, each process
// at a remaining of its own, it admits (To − From)·n rounded down; and after the reset, of
// each window's limit, the units whose places, turned by the window (see the package doc),
// fall in [From, To): (To − From) of the limit on average. To may pass 1 (the part wraps
// around), by at most a whole. A part of To − From outside (0, 1), the zero Part's
// included, or within a billionth of 1 (the rounding of sums that make a whole), or with a
// From or To not finite, is the whole quota.
type Part struct {
	From, To float64
}

// size is the part's share of the pace, in (0, 1); 1 for the whole quota.
func (p Part) size() float64 {
	if p.whole() {
		return 1
	}
	return p.To - p.From
}

// whole reports whether p is the whole quota: a size within wholeSlack of 1 is the
// rounding of a store's running sums (a single replica's [0.58, 1.58) measures
// 0.9999999999999999), and counts as 1.
func (p Part) whole() bool {
	size := p.To - p.From
	return !(size > 0 && size < 1-wholeSlack) || math.IsInf(p.From, 0) || math.IsInf(p.To, 0)
}

// wholeSlack is how far below 1 a part's size may fall by rounding and still be whole.
const wholeSlack = 1e-9

// within returns p's size of n units, rounded down: no more than its share, whatever the n
// of other parts.
func (p Part) within(n int64) int64 {
	if p.whole() || n <= 0 {
		return n
	}
	return int64(math.Floor(float64(n) * p.size()))
}

// of returns how many of n units fall in p, which for parts that tile [0, 1) add up to n.
func (p Part) of(n int64) int64 {
	if p.whole() || n <= 0 {
		return n
	}
	f := float64(n)
	return int64(math.Ceil(f*p.To) - math.Ceil(f*p.From))
}

// Snapshot appends to views what the gate knows at now of each quota of its destination,
// and returns them with the end of the hold a throttle put on every reservation (the zero
// Time when none holds) and how many reservations are pending (made, and neither done nor
// cancelled: the attempts waiting for their time or in flight): what package fleet shares
// with the other replicas once per tick. A gate that knows of no limit returns views as
// they were, at the cost of one atomic load.
func (g *Gate) Snapshot(now time.Time, views []QuotaView) (_ []QuotaView, hold time.Time, pending int) {
	if !g.limited.Load() {
		return views, time.Time{}, 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	views, hold = g.s.snapshot(now, views, g.cfg.ProbeWait)
	pending = len(g.s.pending)
	g.settle()
	return views, hold, pending
}

// Share takes in, at now, what the other processes that share the destination's quotas
// know (package fleet's exchange): views, learnt as readings are (a lower remaining in the
// same window, or a later window, wins) but answering none of this gate's attempts; a
// throttle's hold until hold, when it ends later than the gate's own; and the part of
// every quota the gate keeps to from now on. Reservations already made keep their times.
func (g *Gate) Share(now time.Time, views []QuotaView, hold time.Time, part Part) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.s.share(now, views, hold, part, g.cfg.ProbeWait)
	g.settle()
}

// snapshot is Snapshot's rule: the views of the quotas known at now, and the hold.
func (s *state) snapshot(now time.Time, views []QuotaView, probeWait time.Duration) ([]QuotaView, time.Time) {
	s.prune(now, probeWait)
	for i := range s.quotas {
		if !s.has(i) {
			continue
		}
		q := &s.quotas[i]
		v := QuotaView{Quota: q.name, Limit: q.limit, Window: q.window, Remaining: -1}
		if q.current(now) {
			v.Remaining, v.Reset = q.remaining, q.resetAt
		}
		views = append(views, v)
	}
	return views, s.hold
}

// share is Share's rule: the part set first, so that the windows learnt are split by it;
// then the views, each learnt as a reading is, the calendar numbered anew for the part's
// pace (regrid), and every current window split by the part.
func (s *state) share(now time.Time, views []QuotaView, hold time.Time, part Part, probeWait time.Duration) {
	s.prune(now, probeWait)
	s.part = part
	for i := range s.quotas {
		s.quotas[i].part = part
	}
	for _, v := range views {
		if v.Limit <= 0 && v.Window <= 0 && (v.Remaining < 0 || !v.Reset.After(now)) {
			continue // says nothing
		}
		i := s.slot(v.Quota)
		if set, _ := s.quotas[i].learnView(now, s.last, v); set {
			s.recount(i)
		}
	}
	for i := range s.quotas {
		if !s.has(i) {
			continue
		}
		s.regrid(i)
		if q := &s.quotas[i]; q.current(now) {
			q.split(true) // every replica splits the fleet's remaining by its part
		}
	}
	if hold.After(now) {
		s.hold = later(s.hold, hold)
	}
	if s.knowsRequests() {
		s.adaptive = cubicBucket{} // the server says its limit: no need to guess it
	}
}
