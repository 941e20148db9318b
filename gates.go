package retry

import (
	"log/slog"
	"time"
)

// Result is an attempt's result as a circuit breaker or a retry budget counts it.
type Result uint8

const (
	// ResultSuccess: the service answered decisively, with success or with a permanent
	// failure such as 404 (the service works; the request was wrong).
	ResultSuccess Result = iota
	// ResultFailure: the service failed (a retryable failure or an unknown outcome).
	ResultFailure
	// ResultIgnored: the attempt says nothing about the service, as when the caller's own
	// context ended it.
	ResultIgnored
	// ResultThrottled: the service refused the attempt because the caller is over its rate
	// limit (HTTP 429 Too Many Requests, RFC 6585 section 4; gRPC's RESOURCE_EXHAUSTED): the
	// service works, and the caller must slow down. No circuit breaker counts it as a
	// failure; a rate gate slows down for it.
	ResultThrottled
)

// String returns "success", "failure", "ignored" or "throttled".
func (r Result) String() string {
	switch r {
	case ResultSuccess:
		return "success"
	case ResultFailure:
		return "failure"
	case ResultIgnored:
		return "ignored"
	case ResultThrottled:
		return "throttled"
	}
	return "Result(?)"
}

// CircuitBreaker is what a retry loop asks before each attempt. Package breaker
// implements it; implementations must be safe for concurrent use.
//
// The loop reports one result per attempt. The exchanges a transport re-sent by itself
// within an attempt (Outcome.TransportResends) are not reported: each follows a pooled
// connection that died or an HTTP/2 stream the server refused before processing it, which
// says nothing about whether the service works, and the attempt's own result already
// reports how it ended.
type CircuitBreaker interface {
	// Allow asks to start an attempt now. When it admits the attempt it returns ok and a
	// token to hand to Done. When it refuses, retryIn is how long until it will admit a trial
	// call, or a negative duration when it cannot say.
	Allow() (token uint64, ok bool, retryIn time.Duration)
	// Done reports the result of an attempt that Allow admitted with token.
	Done(token uint64, r Result)
}

// RetryAfterReceiver is implemented by circuit breakers that take into account the wait a
// failed attempt's answer asked for (Retry-After, RFC 9110 section 10.2.3): package
// breaker's stays OPEN for that wait, within bounds, when that failure opens it. For an
// attempt whose answer asked for a wait, the loop calls DoneRetryAfter in place of Done.
type RetryAfterReceiver interface {
	// DoneRetryAfter is Done for an attempt whose answer asked for a wait of retryAfter
	// (positive), counted from the attempt's end.
	DoneRetryAfter(token uint64, r Result, retryAfter time.Duration)
}

// RateGate paces the attempts sent to a destination to the rate it allows, so that an
// attempt waits at the gate for its turn rather than being sent into a refusal (HTTP 429).
// A loop whose Policy.RateGate is set reserves a time to send before every attempt, the
// first included, and waits for it when its deadline allows; otherwise it stops at once
// with ReasonRateLimitExceedsDeadline, its *Error's RetryAfter saying when the gate would
// have let it send. Package ratelimit implements it; implementations must be safe for
// concurrent use, and none of the methods may block.
type RateGate interface {
	// Reserve asks, at now, for a time to send one attempt at notBefore or later. It returns
	// that time, never before notBefore, and a token for Done or Cancel. A gate that knows of
	// no limit returns notBefore. Token 0 reserves nothing: when at is after notBefore, the
	// gate asks the loop to wait until then and ask again (while answers it waits for may
	// tell the destination's limit, or leave room); otherwise the attempt goes, and Done and
	// Cancel of token 0 do nothing.
	Reserve(now, notBefore time.Time) (at time.Time, token uint64)
	// Cancel gives back, at now, the reservation of token, which the loop will not send: it
	// stopped before the reserved time, or a circuit breaker refused the attempt.
	Cancel(token uint64, now time.Time)
	// Done reports, at now, the result of the attempt sent under token, and the wait its
	// answer asked for (Retry-After), 0 for none.
	Done(token uint64, now time.Time, r Result, retryAfter time.Duration)
}

// Reporter is implemented by circuit breakers and retry budgets that put their state in
// every decision record of a loop whose Policy.Breaker or Policy.Budget they are: package
// breaker's says "breaker" ("CLOSED", "OPEN", "HALF_OPEN"), so that the records show each
// state change as it happens; package fleet's also say how old the fleet's view is. The
// loop adds the breaker's fields, then the budget's, after the outcome's (see
// [Decision.AddAttrs]: a key already present is left out).
type Reporter interface {
	// RecordAttrs returns, at now, the fields to add to the record: up to four, an
	// attribute with an empty key marking an unused slot. It must not block, should not
	// allocate, and must be safe for concurrent use: every loop sharing the breaker or
	// budget calls it once a decision.
	RecordAttrs(now time.Time) [4]slog.Attr
}

// reportTo adds the record fields of x, when it is a Reporter, to d.
func reportTo(d *Decision, x any, now time.Time) {
	if x == nil {
		return
	}
	if r, ok := x.(Reporter); ok {
		attrs := r.RecordAttrs(now)
		d.AddAttrs(attrs[:]...)
	}
}

// AdmissionReporter is implemented by circuit breakers that can say, without admitting
// anything, when they will admit the next attempt (package breaker's does). After a failed
// attempt a loop asks it: when the breaker will not admit the next attempt within the wait,
// and waiting for it fits neither MaxWait nor the time left, the loop stops at once with
// ReasonCircuitOpen instead of sleeping first (see [Decide], State.BreakerRetryIn).
type AdmissionReporter interface {
	// RetryIn returns how long until Allow would admit an attempt: 0 when it would now, a
	// positive duration while it refuses for a known time (OPEN), and a negative duration
	// when it cannot say (HALF_OPEN with all its trial calls in flight: their results
	// decide). It must not block for long and must be safe for concurrent use.
	RetryIn() time.Duration
}

// TrialReserver is implemented by circuit breakers that bound how many loops wait for them
// to admit a trial call (package breaker's lets HalfOpenCalls wait). A loop whose
// Policy.BreakerWait lets it wait asks ReserveTrial first, and stops at once with
// ReasonCircuitOpen when it is refused, so that a breaker's refusal fails fast for every
// caller but those its trial calls need.
type TrialReserver interface {
	// ReserveTrial asks for one of the places of the loops that wait for the breaker to
	// admit a trial call; false means none is left. A place is held until the breaker
	// leaves the state it was given in (an OPEN breaker turning HALF_OPEN frees them all),
	// whether or not its loop comes back. It must not block and must be safe for
	// concurrent use.
	ReserveTrial() bool
}

// reserveTrial asks b for a place to wait for a trial call: true when b is no
// TrialReserver (it does not bound its waiting loops).
func reserveTrial(b CircuitBreaker) bool {
	if r, ok := b.(TrialReserver); ok {
		return r.ReserveTrial()
	}
	return true
}

// breakerRetryIn is b's RetryIn when it reports one, else 0 (unknown is not a refusal).
func breakerRetryIn(b CircuitBreaker) time.Duration {
	if r, ok := b.(AdmissionReporter); ok {
		return r.RetryIn()
	}
	return 0
}

// RetryBudget caps retries across all the loops that share it, so that a fleet cannot storm
// a sick server. Package budget implements it; implementations must be safe for
// concurrent use.
type RetryBudget interface {
	// AllowRetry asks to spend one retry, when the loop has decided to retry and before it
	// waits. False stops the loop at once with ReasonRetryBudgetExhausted. First attempts
	// are never asked about, nor the retry after an attempt that never reached the server
	// (Outcome.NeverReached).
	AllowRetry() bool
	// Done reports an attempt that ran; retry is false for a loop's first attempt. An
	// attempt that never reached the server is not reported.
	Done(retry bool, r Result)
}

// ResendCounter is implemented by a [RetryBudget] that also counts the exchanges a
// transport re-sent by itself within an attempt (Outcome.TransportResends). They are
// retries that have already happened: nobody asked the budget, and it cannot refuse them,
// but they add load as any retry does, so a budget that bounds load should count them.
// After an attempt that had re-sends, the loop calls Resent with their number, after Done
// and before it asks AllowRetry about the next retry. Package budget's Ratio implements it.
type ResendCounter interface {
	// Resent counts n (at least 1) re-sent exchanges as requests and as retries spent. It
	// must not block and must be safe for concurrent use, as the budget's other methods.
	Resent(n int)
}

// ResultOf is what a breaker or a budget counts for an attempt of class c: a retryable
// failure or an unknown outcome is a failure of the service; success and a permanent failure
// (the service answered decisively) are successes; and when the caller's own context ended
// the attempt (interrupted) anything but a success says nothing about the service. The retry
// loop reports exactly this, except that an attempt the service throttled
// (Outcome.Throttled) is ResultThrottled unless interrupted; breakers used without a loop
// should too.
func ResultOf(c Class, interrupted bool) Result {
	switch {
	case interrupted && c != ClassSuccess:
		return ResultIgnored
	case c == ClassRetryable || c == ClassUnknown:
		return ResultFailure
	}
	return ResultSuccess
}

// resultOf is what the loop reports of an attempt with outcome o of class c: ResultOf, and
// ResultThrottled for a throttle that the caller did not interrupt.
func resultOf(o *Outcome, c Class, interrupted bool) Result {
	r := ResultOf(c, interrupted)
	if r != ResultIgnored && o.throttled() {
		return ResultThrottled
	}
	return r
}
