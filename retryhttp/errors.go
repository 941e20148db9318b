package retryhttp

import (
	"errors"
	"net/http"
)

// ErrBodyNotReplayable is matched (errors.Is) by the error of a request that failed in a way
// worth retrying but whose body cannot be sent again: it had no GetBody and was larger than
// Transport.MaxBufferedBody (or buffering was off). Such a request is sent once; its retry is
// refused and the loop stops with retry.ReasonNonRetryableError, or retry.ReasonUnknownOutcome
// when it is a write (even one with an idempotency key) whose answer never came.
var ErrBodyNotReplayable = errors.New("retryhttp: request body cannot be sent again: it has no GetBody and exceeds MaxBufferedBody")

// errNoResponse stands for a base RoundTripper that broke its contract by returning neither
// a response nor an error; it is not retried.
var errNoResponse = errors.New("retryhttp: the base RoundTripper returned neither a response nor an error")

// notReplayable is a retryable failure turned permanent because the body cannot be resent.
type notReplayable struct{ cause error }

func (e *notReplayable) Error() string {
	if e.cause == nil {
		return ErrBodyNotReplayable.Error()
	}
	return ErrBodyNotReplayable.Error() + ": " + e.cause.Error()
}

func (e *notReplayable) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrBodyNotReplayable}
	}
	return []error{ErrBodyNotReplayable, e.cause}
}

// ResponseError is returned by [Transport.RoundTrip] when the retry loop stopped by policy
// with a response in hand: the attempts ran out on a 503, the server asked for a wait beyond
// the deadline (retry.ReasonRetryAfterExceedsDeadline) or the policy's MaxWait, a write's
// 500 left its outcome unknown, a breaker or budget refused the retry, and so on. Nothing is
// lost: Response is that last response, status, headers and body readable, and Err is the
// loop's *retry.Error (errors.Is(err, retry.ErrRetryAfterExceedsDeadline) and the like work
// through it).
//
// RoundTrip returns the response inside the error rather than beside it because
// http.Client drops (and leaks) a response returned together with an error. It reads up to
// 64 KiB of the body first, for at most 100 ms: a body that ends within them is in memory,
// its connection released, so an error the caller ignores holds nothing. A longer body, or
// one still coming after 100 ms, reads on from the connection as it comes, after the bytes
// read ahead, and the caller must close Response.Body; until then the attempt's context
// stays alive. With http.Client.Timeout set, the client may cancel that context as it
// returns the error; bound the time with the policy's Timeout instead.
type ResponseError struct {
	// Response is the last attempt's response, its body readable; close it when done.
	Response *http.Response
	// Err is the loop's error: a *retry.Error naming the reason.
	Err error
}

// Error returns Err's message, which names the reason and the status ("retryhttp: response
// error" for a ResponseError without Err).
func (e *ResponseError) Error() string {
	if e.Err == nil {
		return "retryhttp: response error"
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e *ResponseError) Unwrap() error { return e.Err }

// Timeout reports whether a deadline stopped the loop (see retry.Error.Timeout), so that
// http.Client's *url.Error around a ResponseError answers Timeout() as it does for net/http's
// own deadline errors. It is false when Err has no Timeout method.
func (e *ResponseError) Timeout() bool {
	t, ok := e.Err.(interface{ Timeout() bool })
	return ok && t.Timeout()
}

// ErrNotProcessed is matched (errors.Is) by the error of an attempt that the server
// declared it did not process: an HTTP/2 stream it refused (REFUSED_STREAM, RFC 9113
// section 8.7) or one above the last stream id of its GOAWAY (section 6.8). Such a request
// had no effect, so it is retried like one never sent, a write included; when its body
// cannot be sent again the loop stops with retry.ReasonNonRetryableError, never
// retry.ReasonUnknownOutcome: the write was not applied.
var ErrNotProcessed = errors.New("retryhttp: the server did not process the request (HTTP/2 REFUSED_STREAM or GOAWAY): it was not applied")

// notProcessed is the error of an attempt the server did not process.
type notProcessed struct{ cause error }

func (e *notProcessed) Error() string   { return ErrNotProcessed.Error() + ": " + e.cause.Error() }
func (e *notProcessed) Unwrap() []error { return []error{ErrNotProcessed, e.cause} }
