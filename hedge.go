package retry

import (
	"context"
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
// that declares itself safe to run concurrently (Operation.Concurrent).
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

// HedgeRefusal says why a loop did not send a hedge that an attempt's slowness called for.
// The values are stable strings, as Reason's are.
type HedgeRefusal string

// The refusals, in the order the loop checks them.
const (
	// HedgeRefusedRetryAfter: a server asked this loop for a wait (Retry-After, a gRPC
	// pushback): the loop sends no more hedges.
	HedgeRefusedRetryAfter HedgeRefusal = "retry_after"
	// HedgeRefusedDeadline: the time left before the deadline is less than the hedge delay
	// (or Policy.MinAttemptTime): a hedge would not have time to finish.
	HedgeRefusedDeadline HedgeRefusal = "deadline"
	// HedgeRefusedHedgeBudget: the Hedger's own budget refused it.
	HedgeRefusedHedgeBudget HedgeRefusal = "hedge_budget_exhausted"
	// HedgeRefusedCircuitOpen: the circuit breaker refused it (OPEN, or HALF_OPEN with its
	// trial calls in flight).
	HedgeRefusedCircuitOpen HedgeRefusal = "circuit_open"
	// HedgeRefusedRetryBudget: the retry budget (Policy.Budget), which counts every hedge
	// as a retry, refused it.
	HedgeRefusedRetryBudget HedgeRefusal = "retry_budget_exhausted"
)

// HedgeRefusals lists every refusal in a fixed order: the order of
// MetricsSnapshot.HedgesRefused's keys in the command line's output. Treat it as read-only.
var HedgeRefusals = []HedgeRefusal{HedgeRefusedRetryAfter, HedgeRefusedDeadline, HedgeRefusedHedgeBudget,
	HedgeRefusedCircuitOpen, HedgeRefusedRetryBudget}

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
