package ratelimit

import "time"

// This file is the rule of attempts that ask again while answers in flight may let them
// into the current window (see state.claim).

// claim has an attempt that the current windows may yet admit ask again (token 0) rather
// than take t, a later window's time. The attempts admitted and sent before a quota's
// freshest reading arrived count as unseen until their answers come, though that reading
// may have counted some of them already (quota.uncounted bounds how many); when such
// answers could free enough units for this attempt, besides those already claimed, in
// every quota that does not admit it at notBefore, it asks again at 1, 2, 4, ... ms after
// that reading (reask), before the reset. The claims lapse when their attempts are due to
// ask again. An attempt that no answer could let in takes its time at once, so that a
// caller whose deadline it passes stops at once.
func (s *state) claim(now, notBefore, t time.Time, cost int64) (time.Time, bool) {
	nb := later(later(notBefore, now), s.hold)
	if !t.After(nb) {
		return time.Time{}, false
	}
	var at time.Time
	var blocking uint8
	for i := range s.quotas {
		q := &s.quotas[i]
		u := q.units(cost)
		if !s.has(i) || u == 0 {
			continue
		}
		if !q.current(nb) || q.avail() >= u { // past the reset, or waiting for a unit of the next window
			if q.earliest(nb, now, u).Equal(nb) {
				continue // it admits the attempt at nb
			}
			return time.Time{}, false // no answer can let it in sooner
		}
		if !now.Before(q.claimUntil) {
			q.claims = 0
		}
		if !q.part.whole() && q.share-q.claims < u {
			return time.Time{}, false // no answer gives the part more of the window
		}
		ask := reask(q.freshAt, nb, q.resetAt)
		if room := q.avail() - q.claims; room+q.uncounted() < u || !ask.Before(q.resetAt) || !ask.Before(t) ||
			room+s.inFlightBefore(i) < u {
			return time.Time{}, false
		}
		blocking |= 1 << i
		at = later(at, ask)
	}
	if blocking == 0 {
		return time.Time{}, false
	}
	for i := range s.quotas {
		if blocking&(1<<i) != 0 {
			q := &s.quotas[i]
			q.claims += q.units(cost)
			q.claimUntil = later(q.claimUntil, at)
		}
	}
	return at, true
}

// inFlightBefore counts the units of quotas[i] that the attempts admitted and sent before
// its freshest reading arrived, not answered yet, count as unseen.
func (s *state) inFlightBefore(i int) int64 {
	q := &s.quotas[i]
	var n int64
	for j := range s.pending {
		if r := &s.pending[j]; r.counted&(1<<i) != 0 && !r.answered && r.token <= q.freshLast && !r.at.After(q.freshAt) {
			n += q.units(r.cost)
		}
	}
	return n
}

// reask is when an attempt waiting for answers in flight since from asks again: the first
// of 1 ms, 2 ms, 4 ms, ... after from that is after notBefore, and end at the latest; so
// that a waiting attempt learns of an answer within twice the time it took.
func reask(from, notBefore, end time.Time) time.Time {
	d := time.Millisecond
	for !from.Add(d).After(notBefore) {
		d *= 2
	}
	return earlier(from.Add(d), end)
}

// uncounted bounds the units in flight that the freshest reading may have counted
// already: at most what it said the server had counted, less the answers read of the
// window, each one of those counted.
func (q *quota) uncounted() int64 { return max(q.limit-q.remaining-q.answers, 0) }
