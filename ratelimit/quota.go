package ratelimit

import (
	"math"
	"time"
)

// quota is the gate's view of one of a destination's quotas, from the readings of its
// responses. Before the current window's reset, it admits at once what the freshest
// reading left, less what was admitted since that reading (unseen); from the reset on, it
// releases each window's limit at that window's start, over its first tenth (grid), and
// holds the units given out in a calendar (paced).
type quota struct {
	name   string
	tokens bool // a token quota, charged a request's stated cost; else a request quota, one per request

	limit      int64         // units per window: said by the server, or at least the remaining seen plus one; 0 unknown
	limitSaid  bool          // limit came from a reading's Limit
	window     time.Duration // said, or estimated from the resets seen; 0 unknown
	windowSaid bool          // window came from a reading's Window

	// The current window, as the freshest reading told it: zero resetAt when none.
	remaining int64     // what the server had left when it answered
	resetAt   time.Time // when the quota is back
	readAt    time.Time // when the last informative reading of the quota arrived
	freshAt   time.Time // when the reading that set remaining arrived
	freshLast uint64    // the last token handed out then
	answers   int64     // readings of the current window: each an answer the server counted
	unseen    int64     // units admitted into the current window that no reading has counted

	// Attempts asked to ask again while answers in flight tell whether the current window
	// has units for them (state.claim): the units they claim, until they are due.
	claims     int64
	claimUntil time.Time

	part  Part  // the part of the quota this gate keeps to, shared with a fleet; the zero Part: all
	share int64 // with a part: what it still admits of the current window (split)

	grid    grid      // numbers the windows from the reset on; its anchor is zero until one is known
	paced   schedule  // the units of grid given out, by reservation
	pruneAt time.Time // when the calendar has a window to forget next
}

// isTokenQuota reports whether a Reading's Quota counts an LLM API's tokens.
func isTokenQuota(name string) bool {
	return name == "tokens" || name == "input-tokens" || name == "output-tokens"
}

// units is what a request of stated token cost takes from q: one request, its cost in
// tokens, or 0 when q does not apply (a token quota and no cost stated).
func (q *quota) units(cost int64) int64 {
	if q.tokens {
		return cost
	}
	return 1
}

// current reports whether t falls in the current window, before its reset.
func (q *quota) current(t time.Time) bool { return !q.resetAt.IsZero() && t.Before(q.resetAt) }

// avail is what q still admits before its reset: what the freshest reading left, less
// what was admitted since; with a part, no more than the part still admits (share).
func (q *quota) avail() int64 {
	if q.part.whole() {
		return q.remaining - q.unseen
	}
	return min(q.remaining-q.unseen, q.share)
}

// split shares the current window out anew: the part admits its units of what is left,
// less what this gate admitted that no reading has counted; each admission into the window
// takes from it, and a cancelled one gives back. At an exchange with the fleet (shared),
// whose replicas split the same remaining, the part admits its units of it exactly (their
// parts tile what is left); when the gate learns of a window by its own reading, each
// replica at a remaining of its own, the part admits its size of it rounded down, so that
// the replicas' roundings do not add up to more than is left. A fresher reading in the
// same window, lower because the other replicas sent too, does not split it again (the gate
// would take its part of what they left).
func (q *quota) split(shared bool) {
	n := q.part.of(q.remaining)
	if !shared {
		n = q.part.within(q.remaining)
	}
	q.share = n - q.unseen
}

// paceLimit is the most units q releases in a window from its reset on: its limit, or
// the most of it its part holds, at least 1 (see grid.count).
func (q *quota) paceLimit() int64 {
	if q.part.whole() || q.limit <= 0 {
		return q.limit
	}
	return max(int64(math.Ceil(float64(q.limit)*q.part.size())), 1)
}

// paceGrid is the grid of q's windows from anchor on.
func (q *quota) paceGrid(anchor time.Time) grid {
	return grid{anchor: anchor, window: q.window, limit: q.paceLimit(), part: q.part, full: q.limit}
}

// earliest returns the first time at t or later that q admits units: t itself while the
// current window has them left; else, from its reset (and not before now), where the
// calendar places them.
func (q *quota) earliest(t, now time.Time, units int64) time.Time {
	if q.current(t) {
		if _, ok := q.admits(t, units); ok {
			return t
		}
		t = later(t, q.windowEnd())
	}
	if pl, ok := q.place(later(t, now), units); ok {
		return pl.at
	}
	return t
}

// admits reports whether q admits units at t from what the current window has left, and
// returns the units of the next window that the attempt holds too (p < 0: none;
// quota.nextUnits).
func (q *quota) admits(t time.Time, units int64) (p int64, ok bool) {
	if !q.current(t) || q.avail() < units {
		return -1, false
	}
	return q.nextUnits(t, units)
}

// learn takes in a reading r of q that arrived at now, after token last was handed out,
// and reports whether it set the current window's remaining and reset, which the caller
// must then count unseen against anew, and whether that began a window, which the caller
// must then split. Fresher information wins: a new window (no current one, or a reset at
// least half a window later with no less remaining), or a lower remaining in the same
// window, whose reset moves later when it says so. A staler reading (an answer the server
// counted before the freshest one, which arrived after it) changes neither: its reset is
// the staler too, late by the time it took to arrive.
func (q *quota) learn(now time.Time, last uint64, r Reading) (set, began bool) {
	if r.Limit > 0 {
		q.limit, q.limitSaid = r.Limit, true
	}
	if r.Window > 0 {
		q.window, q.windowSaid = r.Window, true
	}
	q.readAt = now
	if r.Remaining < 0 || r.Reset <= 0 {
		return false, false
	}
	if !q.limitSaid {
		q.limit = max(q.limit, r.Remaining+1)
	}
	if !q.windowSaid {
		q.window = max(q.window, estimateWindow(r.Reset))
	}
	return q.learnWindow(now, last, r.Remaining, now.Add(r.Reset))
}

// learnView takes in a view v of q that others sharing the quota shared at now (see
// Gate.Share), after token last was handed out, as learn takes a reading: its limit and
// window as estimates, its remaining and absolute reset by the same rule.
func (q *quota) learnView(now time.Time, last uint64, v QuotaView) (set, began bool) {
	if !q.limitSaid {
		q.limit = max(q.limit, v.Limit)
	}
	if !q.windowSaid {
		q.window = max(q.window, v.Window)
	}
	q.readAt = now
	if v.Remaining < 0 || !v.Reset.After(now) {
		return false, false
	}
	return q.learnWindow(now, last, v.Remaining, v.Reset)
}

// learnWindow takes in, at now, after token last was handed out, that the current window
// had remaining left, resetting at resetAt: learn's rule.
func (q *quota) learnWindow(now time.Time, last uint64, remaining int64, resetAt time.Time) (set, began bool) {
	switch {
	case q.resetAt.IsZero() || !now.Before(q.resetAt) ||
		resetAt.Sub(q.resetAt) >= q.window/2 && remaining >= q.remaining:
		if gap := resetAt.Sub(q.resetAt); !q.windowSaid && !q.resetAt.IsZero() && gap > q.window+q.window/releaseShare &&
			gap <= 2*q.window {
			q.window = gap // consecutive windows' resets are a window apart (more than the readings' own error)
		}
		q.resetAt, q.claims, q.answers, began = resetAt, 0, 0, true
	case remaining < q.remaining:
		q.resetAt = later(q.resetAt, resetAt)
	default:
		q.answers++
		return false, false
	}
	q.answers++
	q.remaining, q.freshAt, q.freshLast = remaining, now, last
	return true, began
}

// expired reports whether q has nothing left to say at now: its reset has passed, and then
// a window with nothing read of it, and no reservation holds units of its calendar.
func (q *quota) expired(now time.Time) bool {
	return !now.Before(later(q.resetAt, q.readAt).Add(q.window)) && q.paced.empty()
}

// minEstimatedWindow is the shortest window estimated from resets alone: a short reset
// read early says a short window, or the end of a long one (the first reading of a window
// may come late in it), and the wrong guess would release a window's limit many times
// over. A shorter window is used only when the server says it (the IETF w).
const minEstimatedWindow = time.Second

// windows are the common lengths of a rate limit's window, from minEstimatedWindow on. A
// window not said is estimated as the largest reset seen, rounded up to one of them (the
// first reading of a window comes some time after it started, and servers set their
// windows in round units), or as the time between the resets of consecutive windows when
// that is longer.
var windows = [...]time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 20 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 20 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// estimateWindow rounds a reset up to the next common window length, at least
// minEstimatedWindow; beyond a day, it is kept.
func estimateWindow(reset time.Duration) time.Duration {
	for _, w := range windows {
		if reset <= w {
			return w
		}
	}
	return reset
}
