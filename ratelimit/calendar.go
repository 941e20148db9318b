package ratelimit

import "time"

// This file is a quota's calendar of the windows from its reset on (see grid): where an
// attempt's units are released, where they stay when the windows are numbered anew, and
// where the current window ends for counting.

// nextUnits returns the units an attempt at t before the reset, admitted from what the
// current window has left, holds in the calendar too: none (p < 0) before the last
// release span of the window; in it, the last free units of the window the reset starts,
// false when it has none. The reset is read from answers that arrive some time after the
// server set it, and a little late (a reset rounded up): so close to it, the attempt may
// count in the next window.
func (q *quota) nextUnits(t time.Time, units int64) (p int64, ok bool) {
	g := q.grid
	if !g.usable() || t.Before(q.resetAt.Add(-g.release())) || q.resetAt.Before(g.anchor) {
		return -1, true
	}
	_, k, ok := g.first(q.resetAt)
	if !ok {
		return -1, true
	}
	return q.paced.latest(k*g.limit, g.end(k), units)
}

// placement is where a reservation after the reset holds its units in the calendar:
// [from, from+units), and for one sent between two windows' releases [next, next+units) as
// well; next < 0 when none.
type placement struct {
	at         time.Time
	from, next int64
}

// place returns the first time at t or later, and the units it holds, that q's calendar
// admits units at; false when q cannot pace (no limit or window known, or t too far off).
// That is the first free release at t or later in t's window; when t's window has none
// left, a send at t itself when one of its units released at or before t was left unused
// and the next window has one free at the same place or earlier, which it holds too (so
// that any window-long span still holds at most the limit: see the package doc); else the
// first free release of a later window. Units never straddle two windows; more than the
// limit start a window of their own.
func (q *quota) place(t time.Time, units int64) (placement, bool) {
	g := q.grid
	if !g.usable() {
		return placement{}, false
	}
	if g.anchor.IsZero() { // no reset known: the first reservation paced starts a window,
		g.anchor, g.part = t, Part{} // and goes at once, whatever its part holds
	}
	t = later(t, g.anchor)
	p0, k, ok := g.first(t)
	if !ok {
		return placement{}, false
	}
	p := q.free(g, p0, units)
	if p < (k+1)*g.limit || units > g.limit {
		return placement{g.at(p), p, -1}, true
	}
	if past, _, ok := g.first(t.Add(1)); ok {
		if b, ok := q.paced.latest(k*g.limit, min(past, g.end(k)), units); ok {
			if c := q.free(g, (k+1)*g.limit, units); c-(k+1)*g.limit <= b-k*g.limit {
				return placement{t, b, c}, true
			}
		}
	}
	return placement{g.at(p), p, -1}, true
}

// free returns the first position at p or later of g, the grid of q's calendar, where
// units are free without straddling two windows, among the positions that release units
// (grid.released); more units than a window holds: from the start of a window that
// releases any. Its result depends on the windows alone, not on p: free of what it
// returned returns it again, as state.earliest needs.
func (q *quota) free(g grid, p, units int64) int64 {
	for {
		p = q.paced.earliest(p, units)
		k, a := p/g.limit, p%g.limit
		n := g.released(k)
		if a+units <= n || a == 0 && n > 0 && units > g.limit {
			return p
		}
		p = (k + 1) * g.limit
	}
}

// kept returns where the units of a reservation at t hold their place when the grid
// changed, as a new one's would: in t's window, the first free release at t or later, else
// the last free units of the window (p < 0 when it is full); when t is past the window's
// release span, the first free units of the next window too (next < 0 when none), as for
// an attempt sent between releases; and in the last release span before the grid's first
// window, the last free units of that window, as for an attempt just before the reset.
func (q *quota) kept(t time.Time, units int64) (p, next int64) {
	g := q.grid
	p, next = -1, -1
	if t.Before(g.anchor) {
		if !t.Before(g.anchor.Add(-g.release())) {
			if b, ok := q.paced.latest(0, g.end(0), units); ok {
				p = b
			}
		}
		return p, next
	}
	p0, k, ok := g.first(t)
	if !ok {
		return p, next
	}
	start, end := k*g.limit, (k+1)*g.limit
	if f := q.free(g, p0, units); f+units <= g.end(k) {
		p = f
	} else if b, ok := q.paced.latest(start, g.end(k), units); ok {
		p = b
	}
	if p0 >= end {
		if c := q.free(g, end, units); c+units <= g.end(k+1) {
			next = c
		}
	}
	return p, next
}

// windowEnd is where the current window ends for counting what it admitted: its reset;
// or, when the reset falls a little after the start of a window of the grid, that start.
// A reset is read from an answer that came after the server set it, and rounded up: the
// next window starts no later than the reset read, and the attempts from that start on
// hold units of it in the calendar (quota.nextUnits, quota.place).
func (q *quota) windowEnd() time.Time {
	g := q.grid
	if !g.usable() || g.anchor.IsZero() || q.resetAt.Before(g.anchor) {
		return q.resetAt
	}
	_, k, ok := g.first(q.resetAt)
	if !ok {
		return q.resetAt
	}
	return g.anchor.Add(time.Duration(k) * g.window)
}

// gridded reports whether q's grid still numbers its windows: the same window and limit
// (its part of it),
// and the reset at the start of one of the grid's windows or within its release (read from
// an answer that came some time after the window started), so that the units given out
// keep their places. Without a reset, the grid keeps the anchor of its first reservation.
func (q *quota) gridded() bool {
	g := q.grid
	switch {
	case g.window != q.window || g.limit != q.paceLimit() || g.part != q.part || g.full != q.limit:
		return false
	case q.resetAt.IsZero() || !g.usable():
		return true
	case g.anchor.IsZero() || q.resetAt.Before(g.anchor):
		return false
	}
	return q.resetAt.Sub(g.anchor)%g.window < g.release()
}

// prune forgets the units given out in the windows before the one now falls in: no
// reservation asks for them again. It looks again once the next window has started.
func (q *quota) prune(now time.Time) {
	g := q.grid
	if now.Before(q.pruneAt) || !g.usable() || g.anchor.IsZero() || now.Before(g.anchor) {
		return
	}
	if _, k, ok := g.first(now); ok {
		q.paced.prune(k * g.limit)
		q.pruneAt = g.anchor.Add(time.Duration(k+1) * g.window)
	} else {
		q.paced.clear() // now is beyond every window numbered
	}
}

// regrid numbers the windows of quotas[i] anew when its grid no longer fits its view
// (quota.gridded): from its reset, with its window and limit (its part of it: paceLimit). Every reservation not done
// keeps its time, and holds the units a new one at that time would (quota.kept), as far
// as the windows have them: one the old numbering overfilled stays so. (Those admitted
// before a reset that came forward keep counting against the current window too.)
func (s *state) regrid(i int) {
	q := &s.quotas[i]
	if q.gridded() {
		return
	}
	anchor := q.resetAt
	if anchor.IsZero() { // no reset known: the window its first reservation started
		anchor = q.grid.anchor
	}
	q.grid, q.pruneAt = q.paceGrid(anchor), time.Time{}
	q.paced.clear()
	bit := uint8(1) << i
	for j := range s.pending {
		r := &s.pending[j]
		r.paced &^= bit
		if u := q.units(r.cost); u > 0 && q.grid.usable() {
			p, next := q.kept(r.at, u)
			for _, from := range [...]int64{p, next} {
				if from >= 0 {
					q.paced.add(from, u, r.token)
					r.paced |= bit
				}
			}
		}
	}
}
