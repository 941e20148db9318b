package ratelimit

import (
	"math"
	"time"
)

// quota is the gate's view of one of a destination's quotas, from the readings of its
// responses. Before the current window's reset, it admits at once what the freshest
// reading left, less what was admitted since that reading (unseen); beyond the reset, it
// paces: each request holds window/limit of the paced schedule, so that what comes back at
// the reset is spread over the window.
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
	unseen    int64     // units admitted into the current window that no reading has counted

	paced schedule // the reservations placed at or after resetAt
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

// avail is what q still admits before its reset.
func (q *quota) avail() int64 { return q.remaining - q.unseen }

// pace is the time units hold in the paced schedule: window·units/limit, or 0 when q
// cannot pace (no limit or window known).
func (q *quota) pace(units int64) time.Duration {
	if q.limit <= 0 || q.window <= 0 {
		return 0
	}
	d := math.Ceil(float64(q.window) * float64(units) / float64(q.limit))
	return time.Duration(min(max(d, 1), float64(100*365*24*time.Hour)))
}

// earliest returns the first time at t or later that q admits units: t itself while the
// current window has them left; else, from its reset (and not before now), the first time
// free in the paced schedule.
func (q *quota) earliest(t, now time.Time, units int64) time.Time {
	if q.current(t) {
		if q.avail() >= units {
			return t
		}
		t = q.resetAt
	}
	d := q.pace(units)
	if d == 0 {
		return t
	}
	return q.paced.earliest(later(t, now), d)
}

// learn takes in a reading r of q that arrived at now, and reports whether it set the
// current window's remaining, which the caller must then count unseen against anew.
// Fresher information wins: a new window (no current one, or a reset at least half a
// window later with no less remaining), or a lower remaining in the same window. A staler
// reading only moves the reset later.
func (q *quota) learn(now time.Time, r Reading) bool {
	if r.Limit > 0 {
		q.limit, q.limitSaid = r.Limit, true
	}
	if r.Window > 0 {
		q.window, q.windowSaid = r.Window, true
	}
	q.readAt = now
	if r.Remaining < 0 || r.Reset <= 0 {
		return false
	}
	resetAt := now.Add(r.Reset)
	if !q.limitSaid {
		q.limit = max(q.limit, r.Remaining+1)
	}
	if !q.windowSaid {
		q.window = max(q.window, roundWindow(r.Reset))
	}
	switch {
	case q.resetAt.IsZero() || !now.Before(q.resetAt) ||
		resetAt.Sub(q.resetAt) >= q.window/2 && r.Remaining >= q.remaining:
		if gap := resetAt.Sub(q.resetAt); !q.windowSaid && !q.resetAt.IsZero() && gap > q.window && gap <= 2*q.window {
			q.window = gap // consecutive windows' resets are a window apart
		}
		q.resetAt = resetAt
	case r.Remaining < q.remaining:
		q.resetAt = later(q.resetAt, resetAt)
	default:
		q.resetAt = later(q.resetAt, resetAt)
		return false
	}
	q.remaining = r.Remaining
	return true
}

// expired reports whether q has nothing left to say at now: its reset has passed, and then
// a window with nothing read of it, and no reservation holds a time in its paced schedule.
func (q *quota) expired(now time.Time) bool {
	return !now.Before(later(q.resetAt, q.readAt).Add(q.window)) && q.paced.empty()
}

// windows are the common lengths of a rate limit's window. A window not said is estimated
// as the largest reset seen, rounded up to one of them (the first reading of a window comes
// some time after it started, and servers set their windows in round units), or as the
// time between the resets of consecutive windows when that is longer.
var windows = [...]time.Duration{
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 20 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 20 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// roundWindow rounds a reset up to the next common window length; beyond a day, it is kept.
func roundWindow(reset time.Duration) time.Duration {
	for _, w := range windows {
		if reset <= w {
			return w
		}
	}
	return reset
}
