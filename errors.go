package retry

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Error is what a retry loop returns when it stops for any reason other than success. Use
// errors.As to read it, errors.Is with a sentinel (ErrAttemptsExhausted, ...) to branch on the
// reason, and errors.Unwrap to reach the last attempt's error: errors.Is and errors.As look
// through it, through the caller's context's cause, and through the last failure that was
// not the deadline's. When the caller's context ended the loop, errors.Is also matches
// context.Canceled or context.DeadlineExceeded, and the cause given to
// context.WithCancelCause or WithTimeoutCause. Every stop caused by a deadline, the caller's
// or the policy's Timeout, and whether it passed during an attempt or was foreseen before a
// wait (ReasonDeadlineExceeded, ReasonWaitExceedsDeadline, ReasonRetryAfterExceedsDeadline),
// matches context.DeadlineExceeded too, so that code mapping it to 504 or DEADLINE_EXCEEDED
// sees the same error whatever the timing.
type Error struct {
	// Reason is why the loop stopped; never ReasonSuccess.
	Reason Reason
	// Attempts is how many attempts ran (0 when none could start); hedges, which share the
	// number of the attempt they copy, are not counted.
	Attempts int
	// Elapsed is the time from the loop's start to the stop, waits included.
	Elapsed time.Duration
	// Status is the last attempt's HTTP status, or 0 when it had none.
	Status int
	// Err is the last attempt's error; nil when the last attempt failed by status alone.
	Err error
	// LastFailure is the failure of the latest attempt that failed by itself, when the last
	// attempt did not: the deadline or the caller's cancellation cut the last attempt, and
	// an earlier one had failed (an *StatusError when it failed by status alone). Nil
	// otherwise.
	LastFailure error
	// Cause is why the caller's context ended the loop: context.Cause of it, which is its
	// Err unless it was canceled with a cause of its own; nil when the context did not end
	// the loop (a stop that foresaw the context's deadline, such as
	// ReasonWaitExceedsDeadline, comes before the context ends).
	Cause error
	// MayHaveApplied reports that the operation may have taken effect although the loop
	// failed, so a caller must not assume that nothing happened: always for
	// ReasonUnknownOutcome, and, set by package retryhttp, for a write with an idempotency key
	// of which an attempt reached the server without a decisive answer (a dropped
	// connection, a timeout, a 500, 502 or 504, a 409 while the original is in progress).
	// Resending such a write with the same key is safe under the server's contract, and
	// looking it up tells whether it was applied. False means that the loop knows of no such
	// attempt; package retry cannot tell for an arbitrary operation that failed.
	MayHaveApplied bool

	retryAfter     time.Duration // see RetryAfter
	hasRetryAfter  bool
	retryAfterFrom string
	trialsInFlight bool // a circuit_open stop whose breaker cannot say when it admits a trial
}

// RetryAfter returns how long from the stop the caller should wait before trying the
// operation again, as the server or the circuit breaker asked: the longer of the last
// attempt's server-requested wait (a Retry-After, even one the loop would not wait for) and,
// for a ReasonCircuitOpen stop, the time until the breaker admits a trial call. For a
// ReasonRetryBudgetExhausted stop without a server's wait, it is the backoff's wait of the
// retry the budget refused: a caller that tries again keeps the loop's pacing although the
// loop returned at once. ok is false when none applies. The package function [RetryAfter]
// gives the same answer for an error that wraps e, and an outer retry loop waits for it.
func (e *Error) RetryAfter() (d time.Duration, ok bool) {
	return e.retryAfter, e.hasRetryAfter
}

// RetryAfterFrom names the source of RetryAfter's wait: the header the server's wait came from
// ("retry-after", ...), "circuit-breaker" for a breaker's, "backoff" for the wait of a retry
// the budget refused, or "" when unknown or none.
func (e *Error) RetryAfterFrom() string { return e.retryAfterFrom }

// Error describes the stop in one line: reason, attempts, elapsed time, then the last
// attempt's status and error, the last failure before it and the caller's cause, e.g.
// "retry: attempts_exhausted after 3 attempts in 1.5s: status 503", or for a breaker's
// refusal "retry: circuit_open after 0 attempts in 0s: trial call in 29.5s".
func (e *Error) Error() string {
	attempts := "attempts"
	if e.Attempts == 1 {
		attempts = "attempt"
	}
	msg := fmt.Sprintf("retry: %s after %d %s in %v", e.Reason, e.Attempts, attempts, e.Elapsed)
	if e.Reason == ReasonCircuitOpen {
		switch {
		case e.trialsInFlight:
			msg += ": trial calls in flight"
		case e.retryAfterFrom == fromBreaker:
			msg += fmt.Sprintf(": trial call in %v", e.retryAfter)
		}
	}
	if e.Status != 0 {
		msg += fmt.Sprintf(": status %d", e.Status)
	}
	switch {
	case e.Err != nil:
		msg += ": " + e.Err.Error()
	case e.Cause != nil:
		msg += ": " + e.Cause.Error()
	}
	if e.LastFailure != nil {
		msg += " (after an earlier attempt's " + e.LastFailure.Error() + ")"
	}
	if e.Cause != nil && e.Err != nil && e.Cause != context.Canceled && e.Cause != context.DeadlineExceeded &&
		!errors.Is(e.Err, e.Cause) {
		msg += " (cause: " + e.Cause.Error() + ")"
	}
	return msg
}

// Unwrap returns the last attempt's error.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e.Reason, context.DeadlineExceeded for a
// stop caused by a deadline, context.Canceled for a cancellation, or matches e.Cause or
// e.LastFailure.
func (e *Error) Is(target error) bool {
	switch {
	case target == nil:
		return false
	case target == e.Reason.Sentinel():
		return true
	case target == context.DeadlineExceeded && e.Reason.isDeadline():
		return true
	case target == context.Canceled && e.Reason == ReasonCanceled:
		return true
	}
	return errors.Is(e.Cause, target) || errors.Is(e.LastFailure, target)
}

// As finds the first error in e.Cause's chain, then in e.LastFailure's, that matches target,
// as errors.As does; errors.As calls it after e itself, before e's last attempt's error.
func (e *Error) As(target any) bool {
	return e.Cause != nil && errors.As(e.Cause, target) || e.LastFailure != nil && errors.As(e.LastFailure, target)
}

// Timeout reports whether the loop failed for a timeout: a deadline stopped it (e's reason,
// or the caller's context, matches context.DeadlineExceeded), or its last attempt's error is
// a timeout (context.DeadlineExceeded from an AttemptTimeout, a dial's i/o timeout: an error
// in Err's chain with a Timeout method that returns true). It makes *Error a timeout as
// net.Error and os.IsTimeout read one, so that a stop seen through http.Client's *url.Error
// (whose Timeout asks the error it wraps) answers Timeout() as net/http's own errors do.
func (e *Error) Timeout() bool {
	if e.Reason.isDeadline() || errors.Is(e.Cause, context.DeadlineExceeded) {
		return true
	}
	t, ok := errors.AsType[interface {
		error
		Timeout() bool
	}](e.Err)
	return ok && t.Timeout()
}

// classOf is what an outer loop makes of e as an attempt's error: a loop that stopped on a
// permanent failure or an unknown outcome passes it on, so an outer loop does not retry
// what the inner one refused to; any other stop is a transient failure (see [Policy.Classify]).
func (e *Error) classOf() Class {
	switch e.Reason {
	case ReasonNonRetryableStatus, ReasonNonRetryableError:
		return ClassPermanent
	case ReasonUnknownOutcome:
		return ClassUnknown
	}
	if e.MayHaveApplied {
		return ClassUnknown
	}
	return ClassRetryable
}

// serverWait is the wait e passes on to an outer loop: RetryAfter's.
func (e *Error) serverWait() (time.Duration, string, bool) {
	return e.retryAfter, e.retryAfterFrom, e.hasRetryAfter
}

// fromBreaker is RetryAfterFrom for a circuit breaker's time to a trial call; fromBackoff
// for the backoff's wait of a retry that the budget refused.
const (
	fromBreaker = "circuit-breaker"
	fromBackoff = "backoff"
)

// StatusError is the failure of an attempt that failed by its HTTP status alone, as
// Error.LastFailure gives it.
type StatusError struct {
	// Status is the attempt's HTTP status.
	Status int
}

// Error returns "status N".
func (e *StatusError) Error() string { return "status " + strconv.Itoa(e.Status) }

// markedError carries a classification (and optionally a server-requested wait) on an error.
type markedError struct {
	err   error
	class Class
	wait  time.Duration
	after bool
}

func (m *markedError) Error() string {
	if m.err == nil {
		return m.class.String()
	}
	return m.err.Error()
}

func (m *markedError) Unwrap() error { return m.err }

func (m *markedError) classOf() Class { return m.class }

func (m *markedError) serverWait() (time.Duration, string, bool) { return m.wait, "", m.after }

// Permanent marks err as not worth retrying: the default classifier stops with
// ReasonNonRetryableError. Permanent(nil) returns nil.
func Permanent(err error) error { return mark(err, ClassPermanent) }

// Retryable marks err as transient, overriding a classifier that would call it permanent.
// Retryable(nil) returns nil.
func Retryable(err error) error { return mark(err, ClassRetryable) }

// UnknownOutcome marks err as a failure whose effect is unknown (a write that may have been
// applied): the loop stops with ReasonUnknownOutcome and never repeats it.
// UnknownOutcome(nil) returns nil.
func UnknownOutcome(err error) error { return mark(err, ClassUnknown) }

// After marks err as transient with a server-requested wait of at least wait before the next
// attempt: the loop never retries earlier, and stops with ReasonRetryAfterExceedsDeadline or
// ReasonRetryAfterExceedsMaxWait when the wait does not fit. A negative wait is not a
// request: the policy's backoff applies. After(nil, d) returns nil.
func After(err error, wait time.Duration) error {
	if err == nil {
		return nil
	}
	return &markedError{err: err, class: ClassRetryable, wait: wait, after: wait >= 0}
}

// RetryAfter returns the wait err asks for before the operation is tried again: for an
// [*Error] in err's chain, its RetryAfter; for an error marked by [After], the wait it
// carries. The outermost of them answers.
func RetryAfter(err error) (time.Duration, bool) {
	wait, _, ok := serverWait(err)
	return wait, ok
}

// waitCarrier is an error that carries a server-requested wait: *markedError and *Error.
type waitCarrier interface {
	error
	serverWait() (wait time.Duration, from string, ok bool)
}

// serverWait is RetryAfter, with the wait's source.
func serverWait(err error) (time.Duration, string, bool) {
	if c, ok := errors.AsType[waitCarrier](err); ok {
		return c.serverWait()
	}
	return 0, "", false
}

func mark(err error, c Class) error {
	if err == nil {
		return nil
	}
	return &markedError{err: err, class: c}
}

// classCarrier is an error that carries its class: *markedError, and *Error (see its class).
type classCarrier interface {
	error
	classOf() Class
}

// classOf returns the class the outermost mark (Permanent, Retryable, UnknownOutcome, After)
// or loop stop in err's chain gives it, or ClassUnspecified.
func classOf(err error) Class {
	if c, ok := errors.AsType[classCarrier](err); ok {
		return c.classOf()
	}
	return ClassUnspecified
}
