package retryhttp

import (
	"context"
	"net/http"
)

// Resolution is a [Reconciler]'s answer about a write whose outcome was unknown.
type Resolution uint8

const (
	// StillUnknown: the lookup could not tell. The loop stops with
	// retry.ReasonUnknownOutcome; the write is not sent again. It is the zero value.
	StillUnknown Resolution = iota
	// Applied: the write took effect. The Reconciler's response is returned as the result,
	// and the write is not sent again.
	Applied
	// NotApplied: the write did not take effect. A retry is allowed, as for any retryable
	// failure (the policy still decides whether and when). Answer it only when the lookup
	// proves the write cannot take effect later (the server's contract says so: a record of
	// the request as rejected, or an idempotency key the server will honour on the resend):
	// "not found yet" from a status endpoint alone is StillUnknown: a status lookup alone
	// does not authorize a second write.
	NotApplied
)

// String returns "still_unknown", "applied" or "not_applied".
func (r Resolution) String() string {
	switch r {
	case Applied:
		return "applied"
	case NotApplied:
		return "not_applied"
	}
	return "still_unknown"
}

// Reconciler resolves the unknown outcome of a non-idempotent request without an idempotency
// key that failed after it was sent (a connection reset or EOF, a timeout waiting for the
// answer, a retryable 500, 502 or 504). It typically asks a status endpoint whether the write
// took effect. A lookup never sends the write again: only NotApplied lets the retry loop
// resend it, and the loop still decides whether and when.
//
// ctx is the caller's request context bounded by the loop's deadline. A lookup sent with ctx
// (or a context made from it) through the same Transport, the same client, passes the
// circuit breaker and retry budget of the write it reconciles: they neither refuse nor count
// it, so it does not compete with the write for a HALF_OPEN breaker's single trial call, and
// it is retried as the policy says. Another destination's breaker and budget
// (Transport.Breakers, Budgets) apply as usual. To send it once, without retries, use the
// Transport's Base directly.
//
// req describes the write (method, URL, headers) and must not be sent: its Body is nil. resp
// is the failed attempt's response (its body readable), or nil when the attempt failed with
// err; the Transport closes resp after the Reconciler returns unless the Reconciler returns
// it. err is the attempt's error, or nil when resp is set. Applied must come with a non-nil
// response, which becomes RoundTrip's result (its body is closed by the caller as usual);
// without one the outcome stays unknown. The Reconciler is called on the goroutine of
// RoundTrip and must be safe for concurrent use when the Transport is.
type Reconciler func(ctx context.Context, req *http.Request, resp *http.Response, err error) (Resolution, *http.Response)
