package retry

import (
	"context"
	"fmt"
	"time"
)

// Hedger decides when a loop sends hedged attempts: a second copy of an attempt that is
// slower than usual, sent while the first is still in flight, whose answer the loop uses if
// it comes first ("The Tail at Scale", Dean and Barroso, CACM 2013). Set one as
// Policy.Hedge; package hedge implements it, with a delay that follows a latency
// percentile and a hedge budget of its own. Implementations must be safe for concurrent
// use, must not block, and should not allocate: every loop sharing the Hedger calls them.
//
// A loop calls Attempt when it starts an attempt that is not a hedge; Latency when such an
// attempt ends with success, or is canceled because a hedge's answer came first; and, when
// an attempt has had no answer for the delay, AllowHedge and then, once the circuit breaker
// and the retry budget have admitted the hedge too, Hedged. A loop hedges only an operation
// run with RunConcurrent, which declares its attempts safe to run at the same time.
type Hedger interface {
	// Attempt returns how long the loop waits for the answer of an attempt it starts now
	// before it sends a hedge, and how many hedges the attempt may have at most (each after
	// the same delay since the last); a delay that is not positive, or no hedges, means
	// none for this attempt. The loop sends at most MaxHedges.
	Attempt() (delay time.Duration, hedges int)
	// AllowHedge reports whether the Hedger's own budget allows one more hedge now. It takes
	// nothing: Hedged does, once every other check has allowed the hedge.
	AllowHedge() bool
	// Hedged counts a hedge the loop sends now.
	Hedged()
	// Latency reports how long an attempt that was not a hedge ran: d is its latency when
	// it succeeded, or, when superseded is true, how long it had run when the loop canceled
	// it because a hedge's answer came first (so it would have taken at least d). Failures
	// and hedges are not reported.
	Latency(d time.Duration, superseded bool)
}

// MaxHedges is the most hedges a loop sends for one attempt, whatever its Hedger says: with
// MaxAttempts attempts, a loop sends at most MaxAttempts × (1 + hedges) requests.
const MaxHedges = 4

// HedgeRefusal says why a loop did not send a hedge that an attempt's slowness called for;
// the zero HedgeRefusal is none. Its String values are stable, as Reason's are: the
// records, metrics and the command line write them.
type HedgeRefusal uint8

// The refusals, in the order the loop checks them.
const (
	// HedgeRefusedRetryAfter ("retry_after"): a server asked this loop for a wait
	// (Retry-After, a gRPC pushback): the loop sends no more hedges.
	HedgeRefusedRetryAfter HedgeRefusal = iota + 1
	// HedgeRefusedDeadline ("deadline"): the time left before the deadline is less than the
	// hedge delay (or Policy.MinAttemptTime): a hedge would not have time to finish. With
	// exactly the delay left, the hedge is sent.
	HedgeRefusedDeadline
	// HedgeRefusedHedgeBudget ("hedge_budget_exhausted"): the Hedger's own budget refused it.
	HedgeRefusedHedgeBudget
	// HedgeRefusedCircuitOpen ("circuit_open"): the circuit breaker refused it (OPEN, or
	// HALF_OPEN with its trial calls in flight).
	HedgeRefusedCircuitOpen
	// HedgeRefusedRetryBudget ("retry_budget_exhausted"): the retry budget, which counts
	// every hedge as a retry, refused it.
	HedgeRefusedRetryBudget
	// HedgeRefusedRateLimit ("rate_limit"): the rate gate (Policy.RateGate) would not let a
	// hedge go now: the destination's rate limit has no room for a second copy.
	HedgeRefusedRateLimit
)

var hedgeRefusalNames = [...]string{"", "retry_after", "deadline", "hedge_budget_exhausted", "circuit_open",
	"retry_budget_exhausted", "rate_limit"}

// String returns the refusal's stable name ("retry_after", ...), "" for none.
func (r HedgeRefusal) String() string {
	if int(r) < len(hedgeRefusalNames) {
		return hedgeRefusalNames[r]
	}
	return fmt.Sprintf("HedgeRefusal(%d)", uint8(r))
}

// MarshalText returns String's name, so that JSON writes a refusal, a map key included,
// by its name.
func (r HedgeRefusal) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// HedgeRefusals lists every refusal in a fixed order: the order of
// MetricsSnapshot.HedgesRefused's keys in the command line's output. Treat it as read-only.
var HedgeRefusals = []HedgeRefusal{HedgeRefusedRetryAfter, HedgeRefusedDeadline, HedgeRefusedHedgeBudget,
	HedgeRefusedCircuitOpen, HedgeRefusedRetryBudget, HedgeRefusedRateLimit}

// hedgeKey is the context key of a hedge's context.
type hedgeKey struct{}

// hedgeContext is the parent of a hedge's context: it says which attempt it hedges.
type hedgeContext struct {
	context.Context
	attempt, hedge int
}

func (c *hedgeContext) Value(key any) any {
	if _, ok := key.(hedgeKey); ok {
		return c
	}
	return c.Context.Value(key)
}

func (c *hedgeContext) String() string { return "retry.hedgeContext" }

// HedgeOf reports, for the context of an attempt that [Run] started as a hedge, the number
// of the attempt it hedges and the hedge's own number (1 for the first); (0, 0) for any
// other context, an attempt that is not a hedge included. An operation that keeps state of
// its own per attempt (a request body, a trailer to read back) uses it to keep a hedge's
// apart from the attempt's.
func HedgeOf(ctx context.Context) (attempt, hedge int) {
	if c, ok := ctx.Value(hedgeKey{}).(*hedgeContext); ok {
		return c.attempt, c.hedge
	}
	return 0, 0
}
