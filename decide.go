package retry

import (
	"context"
	"errors"
	"math"
	"time"
)

// State is what a retry loop knows when an attempt has ended. [Decide] reads nothing else:
// no clock, no context.
type State struct {
	// Attempt is the number of the attempt that just ended, 1 for the first.
	Attempt int
	// Start is when the loop started; Now is when the attempt ended (for an HTTP response,
	// when its headers arrived: Retry-After counts from then).
	Start, Now time.Time
	// Deadline is the loop's deadline; the zero Time means none.
	Deadline time.Time
	// PreviousWait is the wait before the attempt that just ended (0 before the first
	// retry), for backoff.DecorrelatedJitter.
	PreviousWait time.Duration
	// AttemptStart is when the attempt that just ended started; the zero Time means unknown.
	AttemptStart time.Time
	// Nested reports that the loop runs inside an attempt of another loop.
	Nested bool
	// Interrupted is the caller's context error when that context has ended, else nil.
	Interrupted error
	// BreakerRetryIn is how long, from Now, until the policy's circuit breaker will admit
	// the next attempt, as its [AdmissionReporter] says after the attempt that just ended:
	// 0 when it would admit one now, when the policy has no breaker or when the breaker
	// cannot tell; negative when it cannot say (HALF_OPEN with trial calls in flight).
	BreakerRetryIn time.Duration
}

// Decide is the pure decision function at the heart of this package: given a policy, the
// loop's state and the outcome of the attempt that just ended, it says whether to retry and
// after what wait, or why to stop. It reads no clock and never sleeps; its only randomness is
// one number drawn from p.Random when it retries. The checks, in order:
//  1. success stops with ReasonSuccess; an unknown outcome stops with ReasonUnknownOutcome;
//  2. an interrupted caller context stops with ReasonCanceled or ReasonDeadlineExceeded;
//  3. a permanent failure stops with ReasonNonRetryableStatus or ReasonNonRetryableError;
//  4. the deadline, once passed, stops with ReasonDeadlineExceeded (also when the attempt
//     limit is reached: the deadline cut the attempt), then the attempt limit with
//     ReasonAttemptsExhausted;
//  5. the backoff draws a wait, shortened to MaxWait if longer;
//  6. a server-requested wait that leaves too little time before the deadline stops with
//     ReasonRetryAfterExceedsDeadline, one above MaxWait with ReasonRetryAfterExceedsMaxWait;
//     otherwise the wait becomes the longer of the backoff's wait and the requested wait
//     plus a random spread (see Policy.RetryAfterSpread), or, when that would pass MaxWait
//     or leave less than MinAttemptTime before the deadline, the longer of the backoff's
//     wait and the requested wait: a server's wait only ever lengthens a wait;
//  7. a wait that leaves less than MinAttemptTime (or no time) before the deadline stops with
//     ReasonWaitExceedsDeadline;
//  8. a circuit breaker that will not admit the next attempt within the wait
//     (State.BreakerRetryIn longer than it) stops with ReasonCircuitOpen, without a wait,
//     unless waiting for it fits: its time beyond the wait within Policy.BreakerWait (by
//     default none is), and, once it admits, at least MinAttemptTime and a tenth of the
//     time left now before the deadline (a trial squeezed against the deadline is no
//     trial). A breaker that cannot say (negative BreakerRetryIn) does not stop the loop
//     here: the loop waits and asks it again.
//
// The decision carries o.Attrs (see [Decision.AddAttrs]). Decide does not validate p; loops
// call [Policy.Validate] once before the first attempt. A nil p means the zero Policy.
func Decide(p *Policy, s State, o Outcome) Decision {
	var d Decision
	decide(&d, p, &s, &o)
	return d
}

// decide is Decide into d, keeping the attributes that label d (see Loop.start): the Loop
// decides in place, without copying a Decision.
func decide(d *Decision, p *Policy, s *State, o *Outcome) {
	if p == nil {
		p = &defaultPolicy
	}
	recordOutcome(d, p, s, o)
	switch {
	case d.Class == ClassSuccess:
		d.stop(ReasonSuccess)
		return
	case d.Class == ClassUnknown:
		d.stop(ReasonUnknownOutcome)
		return
	case s.Interrupted != nil:
		if isDeadline(s.Interrupted) {
			d.stop(ReasonDeadlineExceeded)
			return
		}
		d.stop(ReasonCanceled)
		return
	case d.Class == ClassPermanent:
		if o.Err == nil && o.Status != 0 {
			d.stop(ReasonNonRetryableStatus)
			return
		}
		d.stop(ReasonNonRetryableError)
		return
	}

	if d.HasDeadline && d.Remaining <= 0 {
		d.stop(ReasonDeadlineExceeded)
		return
	}
	limit := p.maxAttempts()
	if s.Nested && p.Nested == NestedSingleAttempt {
		limit = 1
	}
	if limit != NoLimit && s.Attempt >= limit {
		d.stop(ReasonAttemptsExhausted)
		return
	}

	// One draw a decision: the backoff's, and the spread's scrambled from it, so that a
	// server wait never changes the backoff's later draws.
	draw := p.random()
	wait := p.strategy().Delay(s.Attempt-1, s.PreviousWait, draw)
	maxWait := p.maxWait()
	if maxWait != NoLimit && wait > maxWait {
		wait = maxWait
	}
	least := wait // the wait without a spread
	reason := ReasonRetryableError
	if o.Err == nil && o.Status != 0 {
		reason = ReasonRetryableStatus
	}
	if d.HasRetryAfter {
		if d.HasDeadline && !p.leavesAttemptTime(d.Remaining, d.RetryAfter) {
			d.stop(ReasonRetryAfterExceedsDeadline)
			return
		}
		if maxWait != NoLimit && d.RetryAfter > maxWait {
			d.stop(ReasonRetryAfterExceedsMaxWait)
			return
		}
		// A server wait only ever lengthens the backoff's; the spread comes on top when it
		// fits, and is dropped when it does not.
		least = max(wait, d.RetryAfter)
		wait = max(wait, d.RetryAfter+p.spread(d.RetryAfter, scramble(draw)))
		if (maxWait != NoLimit && wait > maxWait) || (d.HasDeadline && !p.leavesAttemptTime(d.Remaining, wait)) {
			wait = least
		}
		reason = ReasonRetryAfter
	}
	if d.HasDeadline && !p.leavesAttemptTime(d.Remaining, wait) {
		d.stop(ReasonWaitExceedsDeadline)
		return
	}
	if in := s.BreakerRetryIn; in > wait && !p.waitsForBreaker(in-wait, d.Remaining, in, d.HasDeadline) {
		d.stop(ReasonCircuitOpen)
		d.BreakerRetryIn = in
		return
	}
	d.Retry, d.Reason, d.Wait = true, reason, wait
	d.least = min(wait, least)
}

// recordOutcome fills d with what the record of an attempt says whatever the decision: the
// attempt's fields from s and o, its class, and o's attributes after the labels d keeps. It
// sets every field of d but the attributes, one by one, so that the labels stay in place
// (TestRecordOutcomeSetsEveryField keeps the list whole).
func recordOutcome(d *Decision, p *Policy, s *State, o *Outcome) {
	d.truncateAttrs(d.labels)
	elapsed := s.Now.Sub(s.Start)
	d.Attempt, d.Status, d.Err, d.Elapsed, d.Nested = s.Attempt, o.Status, o.Err, elapsed, s.Nested
	d.RetryAfter, d.HasRetryAfter, d.RetryAfterFrom = o.RetryAfter, o.HasRetryAfter, o.RetryAfterFrom
	d.TransportResends, d.Throttled = o.TransportResends, o.throttled()
	d.Wait, d.Retry, d.Reason, d.NoAttempt, d.Hedge, d.Winner, d.Lost, d.HedgeRefused = 0, false, "", false, false, false, false, 0
	d.GateWait, d.BreakerRetryIn, d.AttemptDuration, d.Remaining, d.HasDeadline = 0, 0, 0, 0, false
	d.AddAttrs(o.Attrs...)
	if !s.AttemptStart.IsZero() {
		d.AttemptDuration = s.Now.Sub(s.AttemptStart)
	}
	if !s.Deadline.IsZero() {
		d.HasDeadline = true
		d.Remaining = max(0, s.Deadline.Sub(s.Now))
	}
	if !d.HasRetryAfter && o.Err != nil {
		d.RetryAfter, d.RetryAfterFrom, d.HasRetryAfter = serverWait(o.Err)
	}
	if d.RetryAfter < 0 || !d.HasRetryAfter {
		// not a request: use the backoff
		d.RetryAfter, d.HasRetryAfter, d.RetryAfterFrom = 0, false, ""
	}
	d.Class = p.classify(o)
}

// waitsForBreaker reports whether a loop waits extra for a circuit breaker that admits an
// attempt in admitIn (extra of it beyond any other wait): extra within BreakerWait (none by
// default), and, with a deadline remaining away, the trial left at least MinAttemptTime and
// at least a tenth (1/trialTimeLeftDivisor) of the time left now. Without that share, a
// breaker whose open time equals the loop's Timeout would be waited for until a few
// microseconds before the deadline: the loop would sleep the whole Timeout and stop with
// ReasonDeadlineExceeded without an attempt.
func (p *Policy) waitsForBreaker(extra, remaining, admitIn time.Duration, hasDeadline bool) bool {
	if bw := p.BreakerWait; bw != NoLimit && extra > bw {
		return false // BreakerWait 0 waits for nothing beyond the backoff's wait
	}
	if !hasDeadline {
		return true
	}
	return p.leavesAttemptTime(remaining, admitIn) && remaining-admitIn >= remaining/trialTimeLeftDivisor
}

// trialTimeLeftDivisor divides the time left into the least a trial call must keep for a
// loop to wait for the breaker to admit it: a tenth.
const trialTimeLeftDivisor = 10

// leavesAttemptTime reports whether waiting wait with remaining left before the deadline
// still leaves time for a useful attempt: more than zero, and at least MinAttemptTime.
func (p *Policy) leavesAttemptTime(remaining, wait time.Duration) bool {
	if wait >= remaining {
		return false
	}
	return remaining-wait >= p.MinAttemptTime
}

// spread is the extra wait on top of a server-requested wait of ra, for the random number r:
// uniform in [0, spreadLimit(ra)). It is 0 when the spread is off or ra is zero.
func (p *Policy) spread(ra time.Duration, r uint64) time.Duration {
	limit := p.spreadLimit(ra)
	if limit <= 0 {
		return 0
	}
	u := float64(r>>11) / (1 << 53) // uniform in [0, 1)
	extra := time.Duration(float64(limit) * u)
	if extra < 0 || ra+extra < ra { // saturate rather than overflow
		return math.MaxInt64 - ra
	}
	return extra
}

// spreadLimit bounds the spread on a server wait of ra: the whole of it when it is
// ShortRetryAfter or less, else RetryAfterSpread of it.
func (p *Policy) spreadLimit(ra time.Duration) time.Duration {
	f := p.retryAfterSpread()
	if f == 0 || ra <= 0 {
		return 0
	}
	if ra <= ShortRetryAfter {
		return ra
	}
	share := time.Duration(float64(ra) * f)
	if share < 0 { // float64 overflow of a wait near the largest Duration
		share = ra
	}
	return min(ra, share)
}

// scramble turns a random number into another one independent of it for every practical
// purpose (SplitMix64's finalizer), so that one draw serves the backoff and the spread.
func scramble(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// isDeadline reports whether err is a context's deadline error.
func isDeadline(err error) bool { return errors.Is(err, context.DeadlineExceeded) }
