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
	// when its headers arrived: Retry-After counts from then, SPEC R4.2).
	Start, Now time.Time
	// Deadline is the loop's deadline; the zero Time means none.
	Deadline time.Time
	// PreviousWait is the wait before the attempt that just ended (0 before the first
	// retry), for backoff.DecorrelatedJitter.
	PreviousWait time.Duration
	// AttemptStart is when the attempt that just ended started; the zero Time means unknown.
	AttemptStart time.Time
	// Nested reports that the loop runs inside an attempt of another loop (SPEC R7.3).
	Nested bool
	// Interrupted is the caller's context error when that context has ended, else nil.
	Interrupted error
	// BreakerRetryIn is how long, from Now, until the policy's circuit breaker will admit
	// the next attempt, as its [AdmissionReporter] says after the attempt that just ended:
	// 0 when it would admit one now, when the policy has no breaker or when the breaker
	// cannot tell; negative when it cannot say (HALF_OPEN with trial calls in flight).
	BreakerRetryIn time.Duration
}

// Decision is a retry loop's answer after an attempt: retry after Wait, or stop, always with
// a Reason. It carries the fields of the decision record (DESIGN, SPEC R6.1); see
// [Decision.MarshalJSON] and [Decision.LogValue] for how it is written down.
type Decision struct {
	// Attempt is the number of the attempt that just ended, 1 for the first.
	Attempt int
	// Method and URL come from the Outcome (retryhttp fills them, redacted); a stop made
	// before any attempt takes them from the request retryhttp sends, so every decision of an
	// HTTP loop names its request.
	Method, URL string
	// GRPCCode, Passthrough and InnerRetries come from the Outcome (retrygrpc fills them).
	GRPCCode     string
	Passthrough  bool
	InnerRetries bool
	// Status is the attempt's HTTP status, 0 when none.
	Status int
	// Err is the attempt's error, nil when none.
	Err error
	// Elapsed is the time from the loop's start to the end of the attempt.
	Elapsed time.Duration
	// Remaining is the time left before the deadline, never negative; meaningful only when
	// HasDeadline is true.
	Remaining   time.Duration
	HasDeadline bool
	// RetryAfter is the server-requested wait, meaningful only when HasRetryAfter is true.
	RetryAfter    time.Duration
	HasRetryAfter bool
	// Wait is how long the loop waits before the next attempt; 0 when it stops.
	Wait time.Duration
	// Retry is true to retry, false to stop.
	Retry bool
	// Reason says why; ReasonSuccess is the only stop that is not a failure.
	Reason Reason
	// Class is the outcome's class under the policy.
	Class Class
	// Nested reports that the loop ran inside another loop's attempt (SPEC R7.3).
	Nested bool
	// AttemptDuration is how long the attempt that just ended ran, from its start to
	// State.Now; 0 when State.AttemptStart is unset or NoAttempt is true.
	AttemptDuration time.Duration
	// Breaker is the state of the policy's circuit breaker after the attempt ("CLOSED",
	// "OPEN", "HALF_OPEN"), when the breaker reports one (see [StateReporter]); else "".
	Breaker string
	// FleetAge is the age of the fleet view the policy's fleet breaker or budget decided
	// with (see [FleetReporter]), meaningful only when HasFleetAge is true. FleetStale
	// reports that the fleet's store was out of reach and the decision was local only.
	FleetAge    time.Duration
	HasFleetAge bool
	FleetStale  bool
	// BreakerRetryIn is, for a ReasonCircuitOpen stop, how long until the circuit breaker
	// admits a trial call (negative when it cannot say: HALF_OPEN with its trial calls in
	// flight); 0 for every other decision. It is not part of the JSON record; the loop's
	// *Error carries it as RetryIn.
	BreakerRetryIn time.Duration
	// TransportResends counts the exchanges the transport sent again by itself within the
	// attempt (Outcome.TransportResends): the server may have seen Attempt +
	// TransportResends requests for this one attempt.
	TransportResends int
	// ResumedFrom is the byte offset at which the attempt resumed a response body that an
	// earlier attempt had begun (a Range request, RFC 9110 section 14.2); 0 when it started
	// at the beginning. Loops never resume by themselves and leave it 0: the code that
	// resumes sets it on the decisions it records (the retry command line does).
	ResumedFrom int64
	// NoAttempt reports a stop decided without a new attempt: a wait cut short by the
	// caller, a wake-up too close to the deadline, or a breaker's refusal. Attempt then
	// numbers the last attempt that ran (0 when none did), and the other fields are that
	// attempt's. Count attempts as the decisions without NoAttempt.
	NoAttempt bool
}

// Decide is the pure decision function at the heart of this package: given a policy, the
// loop's state and the outcome of the attempt that just ended, it says whether to retry and
// after what wait, or why to stop. It reads no clock and never sleeps; its only randomness is
// drawn from p.Random. The checks, in order:
//  1. success stops with ReasonSuccess; an unknown outcome stops with ReasonUnknownOutcome;
//  2. an interrupted caller context stops with ReasonCanceled or ReasonDeadlineExceeded;
//  3. a permanent failure stops with ReasonNonRetryableStatus or ReasonNonRetryableError;
//  4. the attempt limit, then the deadline, may stop the loop;
//  5. the backoff draws a wait, shortened to MaxWait if longer;
//  6. a server-requested wait that leaves too little time before the deadline stops with
//     ReasonRetryAfterExceedsDeadline, one above MaxWait with ReasonRetryAfterExceedsMaxWait;
//     otherwise the wait becomes the longer of the backoff's wait and the requested wait
//     plus a random spread of up to Policy.RetryAfterSpread of it (by default as long
//     again), so the loop never retries earlier than asked (SPEC R4.4) and clients told the
//     same Retry-After do not come back in step; when that longer wait would pass MaxWait
//     or leave less than MinAttemptTime before the deadline, the wait is exactly the
//     requested wait;
//  7. a wait that leaves less than MinAttemptTime (or no time) before the deadline stops with
//     ReasonWaitExceedsDeadline (SPEC R2.3);
//  8. a circuit breaker that will not admit the next attempt within the wait
//     (State.BreakerRetryIn longer than it) stops with ReasonCircuitOpen, without a wait,
//     unless waiting for it fits: its time beyond the wait within MaxWait, and, once it
//     admits, at least MinAttemptTime and a tenth of the time left now before the deadline
//     (SPEC R5.1, R2.3: a trial squeezed against the deadline is no trial). A breaker that
//     cannot say (negative BreakerRetryIn) does not stop the loop here: the loop waits and
//     asks it again.
//
// Decide does not validate p; loops call [Policy.Validate] once before the first attempt.
// A nil p means the zero Policy.
func Decide(p *Policy, s State, o Outcome) Decision {
	if p == nil {
		p = &defaultPolicy
	}
	d := Decision{Attempt: s.Attempt, Method: o.Method, URL: o.URL, Status: o.Status, Err: o.Err,
		GRPCCode: o.GRPCCode, Passthrough: o.Passthrough, InnerRetries: o.InnerRetries, Elapsed: s.Now.Sub(s.Start), Nested: s.Nested, RetryAfter: o.RetryAfter, HasRetryAfter: o.HasRetryAfter,
		TransportResends: o.TransportResends}
	if !s.AttemptStart.IsZero() {
		d.AttemptDuration = s.Now.Sub(s.AttemptStart)
	}
	if !s.Deadline.IsZero() {
		d.HasDeadline = true
		d.Remaining = max(0, s.Deadline.Sub(s.Now))
	}
	if !d.HasRetryAfter && o.Err != nil {
		d.RetryAfter, d.HasRetryAfter = RetryAfter(o.Err)
	}
	if d.RetryAfter < 0 {
		d.RetryAfter, d.HasRetryAfter = 0, false // not a request: use the backoff (SPEC R4.3)
	}
	d.Class = p.Classify(o)
	switch {
	case d.Class == ClassSuccess:
		return d.stop(ReasonSuccess)
	case d.Class == ClassUnknown:
		return d.stop(ReasonUnknownOutcome)
	case s.Interrupted != nil:
		if isDeadline(s.Interrupted) {
			return d.stop(ReasonDeadlineExceeded)
		}
		return d.stop(ReasonCanceled)
	case d.Class == ClassPermanent:
		if o.Err == nil && o.Status != 0 {
			return d.stop(ReasonNonRetryableStatus)
		}
		return d.stop(ReasonNonRetryableError)
	}

	limit := p.maxAttempts()
	if s.Nested && p.Nested == NestedSingleAttempt {
		limit = 1
	}
	if limit != Unlimited && s.Attempt >= limit {
		return d.stop(ReasonAttemptsExhausted)
	}
	if d.HasDeadline && d.Remaining <= 0 {
		return d.stop(ReasonDeadlineExceeded)
	}

	// One draw a decision: the backoff's, and the spread's scrambled from it, so that a
	// server wait never changes the backoff's later draws.
	draw := p.random()
	wait := p.strategy().Delay(s.Attempt-1, s.PreviousWait, draw)
	maxWait := p.maxWait()
	if maxWait != NoLimit && wait > maxWait {
		wait = maxWait
	}
	reason := ReasonRetryableError
	if o.Err == nil && o.Status != 0 {
		reason = ReasonRetryableStatus
	}
	if d.HasRetryAfter {
		if d.HasDeadline && !p.leavesAttemptTime(d.Remaining, d.RetryAfter) {
			return d.stop(ReasonRetryAfterExceedsDeadline)
		}
		if maxWait != NoLimit && d.RetryAfter > maxWait {
			return d.stop(ReasonRetryAfterExceedsMaxWait)
		}
		// A server wait only ever lengthens the backoff's; the spread comes on top when it
		// fits, and is dropped when it does not.
		least := max(wait, d.RetryAfter)
		wait = max(wait, d.RetryAfter+p.spread(d.RetryAfter, scramble(draw)))
		if (maxWait != NoLimit && wait > maxWait) || (d.HasDeadline && !p.leavesAttemptTime(d.Remaining, wait)) {
			wait = least
		}
		reason = ReasonRetryAfter
	}
	if d.HasDeadline && !p.leavesAttemptTime(d.Remaining, wait) {
		return d.stop(ReasonWaitExceedsDeadline)
	}
	if in := s.BreakerRetryIn; in > wait && !p.waitsForBreaker(in-wait, d.Remaining, in, d.HasDeadline) {
		d = d.stop(ReasonCircuitOpen)
		d.BreakerRetryIn = in
		return d
	}
	d.Retry, d.Reason, d.Wait = true, reason, wait
	return d
}

// waitsForBreaker reports whether a loop waits extra for a circuit breaker that admits an
// attempt in admitIn (extra of it beyond any other wait): extra within MaxWait, and, with a
// deadline remaining away, the trial left at least MinAttemptTime and at least a tenth
// (1/trialTimeLeftDivisor) of the time left now. Without that share, a breaker whose open time
// equals the loop's Timeout (both 30 s by default) would be waited for until a few
// microseconds before the deadline: the loop would sleep the whole Timeout and stop with
// ReasonDeadlineExceeded without an attempt, where an OPEN breaker must refuse at once
// (SPEC R5.1, R2.3).
func (p *Policy) waitsForBreaker(extra, remaining, admitIn time.Duration, hasDeadline bool) bool {
	if maxWait := p.maxWait(); maxWait != NoLimit && extra > maxWait {
		return false
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
	if extra < 0 || ra+extra < ra { // saturate rather than overflow (SPEC R1.7)
		return math.MaxInt64 - ra
	}
	return extra
}

// spreadLimit bounds the spread on a server wait of ra: RetryAfterSpread of it, but at least
// RetryAfterSpreadFloor, and never more than ra itself.
func (p *Policy) spreadLimit(ra time.Duration) time.Duration {
	f := p.retryAfterSpread()
	if f == 0 || ra <= 0 {
		return 0
	}
	share := time.Duration(float64(ra) * f)
	if share < 0 { // float64 overflow of a wait near the largest Duration
		share = ra
	}
	return min(ra, max(RetryAfterSpreadFloor, share))
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

func (d Decision) stop(r Reason) Decision {
	d.Retry, d.Reason, d.Wait = false, r, 0
	return d
}
