package retry

import (
	"fmt"
	"log/slog"
	"slices"
	"time"
)

// Class is what an attempt's outcome means for retrying.
type Class uint8

const (
	// ClassUnspecified asks the next classifier in line: the outcome's own Class, then the
	// policy's Classifier, then the default rules (see [Policy.Classify]).
	ClassUnspecified Class = iota
	// ClassSuccess is a confirmed success: stop with ReasonSuccess.
	ClassSuccess
	// ClassRetryable is a transient failure: retry if the policy allows.
	ClassRetryable
	// ClassPermanent is a confirmed failure that a retry will not fix.
	ClassPermanent
	// ClassUnknown is an outcome that may have taken effect, such as a write whose answer
	// never came: never retried blindly; it stops with ReasonUnknownOutcome.
	ClassUnknown
)

// String returns "unspecified", "success", "retryable", "permanent" or "unknown".
func (c Class) String() string {
	switch c {
	case ClassUnspecified:
		return "unspecified"
	case ClassSuccess:
		return "success"
	case ClassRetryable:
		return "retryable"
	case ClassPermanent:
		return "permanent"
	case ClassUnknown:
		return "unknown"
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// DefaultRetryableStatuses are the HTTP statuses retried when a policy names none: 408
// Request Timeout, 429 Too Many Requests, 500, 502 Bad Gateway, 503 Service Unavailable and
// 504 Gateway Timeout. Treat it as read-only.
var DefaultRetryableStatuses = []int{408, 429, 500, 502, 503, 504}

// Outcome is what one attempt reports to [Decide]. The zero Outcome is a success.
type Outcome struct {
	// Err is the attempt's error; nil when the attempt completed (perhaps with a status).
	Err error
	// Status is the HTTP status of the attempt's response, or 0 when there was none.
	Status int
	// RetryAfter is the wait the server asked for, counted from when its response arrived;
	// meaningful only when HasRetryAfter is true. An error made by [After] sets both when
	// the outcome does not.
	RetryAfter time.Duration
	// HasRetryAfter reports whether the server asked for a wait. A missing or malformed
	// Retry-After leaves it false, so the policy's backoff applies.
	HasRetryAfter bool
	// RetryAfterFrom names where RetryAfter came from, for the record's retry_after_from:
	// the header's name in lower case ("retry-after", "retry-after-ms") or another source
	// ("grpc-retry-pushback-ms"); "" when unknown or when there is no wait.
	RetryAfterFrom string
	// Class, when not ClassUnspecified, decides the outcome's class before any mark or
	// classifier.
	Class Class
	// TransportResends counts the exchanges that the transport under the attempt sent again
	// by itself within the attempt, unasked: net/http re-sends an idempotent request whose
	// kept-alive connection died, and an HTTP/2 request the server refused. The server may
	// have seen each of them, so they count where load is counted: [Metrics] and a
	// [RetryBudget] that implements [ResendCounter] count them as retries. A circuit breaker
	// is not told of them (see [CircuitBreaker]).
	TransportResends int
	// NeverReached reports that the attempt's request never reached the server, so that it
	// put no load on it: a dial refused or a DNS failure (nothing was written), an HTTP/2
	// stream the server refused before processing it (REFUSED_STREAM, or past the last
	// stream of a GOAWAY), a proxy's refusal of the tunnel to the origin (a 503 answering
	// CONNECT). Package retryhttp sets it. Such an attempt costs a retry budget nothing: the
	// loop neither reports it to the budget nor asks the budget about the retry after it. A
	// circuit breaker still hears of it (an endpoint refusing connections is down).
	NeverReached bool
	// Throttled reports that the service refused the attempt because the caller is over its
	// rate limit: gRPC's RESOURCE_EXHAUSTED (package retrygrpc sets it) or another
	// protocol's throttle. An HTTP status 429 is a throttle whatever this field says. A
	// throttle is no failure of the service: a circuit breaker does not count it
	// (ResultThrottled), a retry budget does not refuse the retry that waits what the server
	// asked, and a rate gate slows down for it.
	Throttled bool
	// Ended, when not zero, is when the attempt ended: for an HTTP response, when its headers
	// arrived, from which a Retry-After counts (package retryhttp sets it). The zero Time
	// means when the attempt function returned, which the loop reads from the clock.
	Ended time.Time
	// Attrs are fields that the code running the attempt adds to its decision record (a gRPC
	// status code, a body's length), written after the record's own fields. The decision
	// copies them: the slice may be reused once Decide or Loop.Done returns, so an adapter
	// that keeps a buffer of them in its own per-operation state adds them without
	// allocating. See [Decision.AddAttrs] for the rules on keys.
	Attrs []slog.Attr
}

// statusTooManyRequests is HTTP's throttle, 429 Too Many Requests (RFC 6585 section 4).
const statusTooManyRequests = 429

// throttled reports whether o is a throttle: Throttled, or an HTTP 429.
func (o *Outcome) throttled() bool { return o.Throttled || o.Status == statusTooManyRequests }

// Classify returns the class of o under p, asking in turn until one answers:
//   - o.Class, when set;
//   - a mark on o.Err made by [Permanent], [Retryable], [UnknownOutcome] or [After]: the call
//     site knows its error best;
//   - p.Classifier, unless it returns ClassUnspecified;
//   - the default rules: any other error is ClassRetryable;
//   - a status is classified as [Policy.RetryableStatuses] says: a status in the list, an
//     unrecognised status whose class's x00 is in the list, a status outside 100-599, and,
//     under the default list, a 413 with a Retry-After are ClassRetryable; any other
//     status of 400 or more is ClassPermanent;
//   - anything else is ClassSuccess.
//
// A nil p classifies as the zero Policy does.
func (p *Policy) Classify(o Outcome) Class {
	if p == nil {
		p = &defaultPolicy
	}
	return p.classify(&o)
}

// classify is Classify without copying o.
func (p *Policy) classify(o *Outcome) Class {
	if o.Class != ClassUnspecified {
		return o.Class
	}
	if o.Err != nil {
		if c := classOf(o.Err); c != ClassUnspecified {
			return c
		}
	}
	if p.Classifier != nil {
		if c := p.Classifier(*o); c != ClassUnspecified {
			return c
		}
	}
	if o.Err != nil {
		return ClassRetryable
	}
	if o.Status != 0 {
		return p.classifyStatus(o)
	}
	return ClassSuccess
}

// classifyStatus applies the status rules of [Policy.RetryableStatuses] to o.Status.
func (p *Policy) classifyStatus(o *Outcome) Class {
	status := o.Status
	if status < 100 || status > 599 {
		return ClassRetryable // not HTTP: an invalid response (RFC 9110 section 15)
	}
	statuses := p.RetryableStatuses
	if statuses == nil {
		statuses = DefaultRetryableStatuses
		if status == 413 && o.HasRetryAfter {
			return ClassRetryable // the condition is temporary (RFC 9110 section 15.5.14)
		}
	}
	if slices.Contains(statuses, status) {
		return ClassRetryable
	}
	if !registeredStatus(status) && slices.Contains(statuses, status/100*100) {
		return ClassRetryable // an unrecognised status is its class's x00 (RFC 9110 section 15)
	}
	if status >= 400 {
		return ClassPermanent
	}
	return ClassSuccess
}

// registeredStatus reports whether status is in the IANA HTTP Status Code Registry (RFC
// 9110 section 16.2.1, with RFC 6585, RFC 8297, RFC 8470, RFC 7725, WebDAV's RFC 4918 and
// RFC 5842), as of 2026: a status a client recognises by itself. Any other status in
// 100-599 is unrecognised, and RFC 9110 section 15 asks a client to treat it as the x00 of
// its class: 520 or 599 as 500, 499 as 400.
func registeredStatus(status int) bool {
	switch {
	case status >= 100 && status <= 103, status >= 200 && status <= 208, status == 226,
		status >= 300 && status <= 308 && status != 306,
		status >= 400 && status <= 418, status >= 421 && status <= 426, status == 428, status == 429,
		status == 431, status == 451,
		status >= 500 && status <= 508, status == 510, status == 511:
		return true
	}
	return false
}
