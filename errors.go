package retry

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// Error is what a retry loop returns when it stops for any reason other than success. Use
// errors.As to read it, errors.Is with a sentinel (ErrAttemptsExhausted, ...) to branch on the
// reason, and errors.Unwrap (or errors.Is/As through it) to reach the last attempt's error
// (SPEC R6.3). When the caller's context ended the loop, errors.Is also matches that
// context's error (context.Canceled or context.DeadlineExceeded). Every stop caused by a
// deadline, the caller's or the policy's Timeout, and whether it passed during an attempt
// or was foreseen before a wait (ReasonDeadlineExceeded, ReasonWaitExceedsDeadline,
// ReasonRetryAfterExceedsDeadline), matches context.DeadlineExceeded too, so that code
// mapping it to 504 or DEADLINE_EXCEEDED sees the same error whatever the timing.
type Error struct {
	// Reason is why the loop stopped; never ReasonSuccess.
	Reason Reason
	// Attempts is how many attempts ran (0 when none could start).
	Attempts int
	// Elapsed is the time from the loop's start to the stop, waits included.
	Elapsed time.Duration
	// Status is the last attempt's HTTP status, or 0 when it had none.
	Status int
	// Err is the last attempt's error; nil when the last attempt failed by status alone.
	Err error
	// Context is the caller's context error that ended the loop, or nil.
	Context error
	// RetryIn is, for ReasonCircuitOpen, how long from the stop until the circuit breaker
	// admits a trial call, as the breaker said (a service may pass it on to its own caller
	// as a Retry-After); negative when the breaker cannot say (HALF_OPEN with its trial calls
	// in flight), and 0 for every other reason. See also [Error.RetryAfter].
	RetryIn time.Duration
	// MayHaveApplied reports that the operation may have taken effect although the loop
	// failed, so a caller must not assume that nothing happened (SPEC R3.4): always for
	// ReasonUnknownOutcome, and, set by package retryhttp, for a write with an idempotency key
	// of which an attempt reached the server without a decisive answer (a dropped
	// connection, a timeout, a 500, 502 or 504, a 409 while the original is in progress).
	// Resending such a write with the same key is safe under the server's contract, and
	// looking it up tells whether it was applied. False means that the loop knows of no such
	// attempt; package retry cannot tell for an arbitrary operation that failed.
	MayHaveApplied bool
}

// RetryAfter returns RetryIn when it is known: ok is true for a ReasonCircuitOpen stop whose
// breaker said when it admits a trial call.
func (e *Error) RetryAfter() (d time.Duration, ok bool) {
	return e.RetryIn, e.Reason == ReasonCircuitOpen && e.RetryIn > 0
}

// Error describes the stop in one line: reason, attempts, elapsed time, then the last
// attempt's status and error, e.g.
// "retry: attempts_exhausted after 3 attempts in 1.5s: status 503", or for a breaker's
// refusal "retry: circuit_open after 0 attempts in 0s: trial call in 29.5s".
func (e *Error) Error() string {
	b := make([]byte, 0, 96)
	b = append(b, "retry: "...)
	b = append(b, e.Reason...)
	b = append(b, " after "...)
	b = strconv.AppendInt(b, int64(e.Attempts), 10)
	if e.Attempts == 1 {
		b = append(b, " attempt in "...)
	} else {
		b = append(b, " attempts in "...)
	}
	b = append(b, e.Elapsed.String()...)
	if e.Reason == ReasonCircuitOpen && e.RetryIn != 0 {
		if e.RetryIn < 0 {
			b = append(b, ": trial calls in flight"...)
		} else {
			b = append(b, ": trial call in "...)
			b = append(b, e.RetryIn.String()...)
		}
	}
	if e.Status != 0 {
		b = append(b, ": status "...)
		b = strconv.AppendInt(b, int64(e.Status), 10)
	}
	if e.Err != nil {
		b = append(b, ": "...)
		b = append(b, e.Err.Error()...)
	} else if e.Context != nil {
		b = append(b, ": "...)
		b = append(b, e.Context.Error()...)
	}
	return string(b)
}

// Unwrap returns the last attempt's error.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e.Reason, context.DeadlineExceeded for a
// stop caused by a deadline, or matches the context error that ended the loop.
func (e *Error) Is(target error) bool {
	if s := e.Reason.Sentinel(); s != nil && target == s {
		return true
	}
	if target == context.DeadlineExceeded && e.Reason.isDeadline() {
		return true
	}
	return e.Context != nil && errors.Is(e.Context, target)
}

// Timeout reports whether the loop failed for a timeout: a deadline stopped it (e's reason,
// or the caller's context error, matches context.DeadlineExceeded), or its last attempt's
// error is a timeout (context.DeadlineExceeded from an AttemptTimeout, a dial's i/o timeout:
// an error in Err's chain with a Timeout method that returns true). It makes *Error a
// timeout as net.Error and os.IsTimeout read one, so that a stop seen through http.Client's
// *url.Error (whose Timeout asks the error it wraps) answers Timeout() as net/http's own
// errors do.
func (e *Error) Timeout() bool {
	if e.Reason.isDeadline() || (e.Context != nil && errors.Is(e.Context, context.DeadlineExceeded)) {
		return true
	}
	var t interface{ Timeout() bool }
	return errors.As(e.Err, &t) && t.Timeout()
}

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

// Permanent marks err as not worth retrying: the default classifier stops with
// ReasonNonRetryableError (SPEC R3.6). Permanent(nil) returns nil.
func Permanent(err error) error { return mark(err, ClassPermanent) }

// Retryable marks err as transient, overriding a classifier that would call it permanent
// (SPEC R3.6). Retryable(nil) returns nil.
func Retryable(err error) error { return mark(err, ClassRetryable) }

// UnknownOutcome marks err as a failure whose effect is unknown (a write that may have been
// applied): the loop stops with ReasonUnknownOutcome and never repeats it (SPEC R3.4).
// UnknownOutcome(nil) returns nil.
func UnknownOutcome(err error) error { return mark(err, ClassUnknown) }

// After marks err as transient with a server-requested wait of at least wait before the next
// attempt: the loop never retries earlier, and stops with ReasonRetryAfterExceedsDeadline or
// ReasonRetryAfterExceedsMaxWait when the wait does not fit (SPEC R4.4). A negative wait is
// not a request: the policy's backoff applies (SPEC R4.3). After(nil, d) returns nil.
func After(err error, wait time.Duration) error {
	if err == nil {
		return nil
	}
	return &markedError{err: err, class: ClassRetryable, wait: wait, after: wait >= 0}
}

// RetryAfter returns the server-requested wait carried by err (see [After]), if any.
func RetryAfter(err error) (time.Duration, bool) {
	if m := findMark(err); m != nil && m.after {
		return m.wait, true
	}
	return 0, false
}

func mark(err error, c Class) error {
	if err == nil {
		return nil
	}
	return &markedError{err: err, class: c}
}

// classOf returns the class an error was marked with by Permanent, Retryable, UnknownOutcome
// or After, or ClassUnspecified.
func classOf(err error) Class {
	if m := findMark(err); m != nil {
		return m.class
	}
	return ClassUnspecified
}

// findMark returns the outermost *markedError in err's tree, walked as errors.As walks it.
// It exists because errors.As moves its target to the heap: this walk allocates nothing.
func findMark(err error) *markedError {
	for err != nil {
		switch e := err.(type) {
		case *markedError:
			return e
		case interface{ Unwrap() error }:
			err = e.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				if m := findMark(inner); m != nil {
					return m
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}
