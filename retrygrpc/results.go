package retrygrpc

import (
	"log/slog"
	"time"

	"github.com/retrykit/retry"
)

// A call's circuit breaker and retry budget hear each attempt's result as package retry
// counts it (retry.ResultOf; retry.ResultThrottled for RESOURCE_EXHAUSTED, see throttle),
// except that an attempt whose class is a decisive answer (ClassPermanent: not retried) but
// that failed the service counts as a failure: a pushback asking not to retry (gRFC A6 counts
// it a throttling failure, whatever the code), and a committed server stream that failed with
// a code the call retries. For the breaker a throttle stays one, pushback or not: the service
// answers. For the budget a throttle that asked not to retry is A6's throttling failure: a
// TokenBucket loses a token. The loop only sees the class, so the call wraps the target's
// breaker and budget to tell them.

// callBreaker is the call's circuit breaker: the target's, told the call's results.
type callBreaker struct {
	retry.CircuitBreaker
	c *call
}

// Done reports the attempt's result, a failure when the call says so.
func (b *callBreaker) Done(token uint64, r retry.Result) {
	b.CircuitBreaker.Done(token, b.c.result(r, false))
}

// DoneRetryAfter reports the result of an attempt whose answer asked for a wait (pushback,
// RetryInfo) to the breaker's own DoneRetryAfter (retry.RetryAfterReceiver), or to its Done
// when it has none: the target's breaker then learns its open time from the wait.
func (b *callBreaker) DoneRetryAfter(token uint64, r retry.Result, retryAfter time.Duration) {
	if receiver, ok := b.CircuitBreaker.(retry.RetryAfterReceiver); ok {
		receiver.DoneRetryAfter(token, b.c.result(r, false), retryAfter)
		return
	}
	b.CircuitBreaker.Done(token, b.c.result(r, false))
}

// RetryIn is the breaker's own (retry.AdmissionReporter), 0 when it has none: what the loop
// reads from a breaker that is not an AdmissionReporter.
func (b *callBreaker) RetryIn() time.Duration {
	if a, ok := b.CircuitBreaker.(retry.AdmissionReporter); ok {
		return a.RetryIn()
	}
	return 0
}

// RecordAttrs is the breaker's own (retry.Reporter), none when it has none.
func (b *callBreaker) RecordAttrs(now time.Time) [4]slog.Attr {
	return recordAttrsOf(b.CircuitBreaker, now)
}

// callBudget is the call's retry budget: the target's, told the call's results.
type callBudget struct {
	retry.RetryBudget
	c *call
}

// Done reports the attempt's result, a failure when the call says so.
func (b *callBudget) Done(retried bool, r retry.Result) {
	b.RetryBudget.Done(retried, b.c.result(r, true))
}

// Resent is the budget's own (retry.ResendCounter), when it has one.
func (b *callBudget) Resent(n int) {
	if counter, ok := b.RetryBudget.(retry.ResendCounter); ok {
		counter.Resent(n)
	}
}

// RecordAttrs is the budget's own (retry.Reporter), none when it has none.
func (b *callBudget) RecordAttrs(now time.Time) [4]slog.Attr {
	return recordAttrsOf(b.RetryBudget, now)
}

// recordAttrsOf returns x's record fields when it is a retry.Reporter, else none.
func recordAttrsOf(x any, now time.Time) [4]slog.Attr {
	if r, ok := x.(retry.Reporter); ok {
		return r.RecordAttrs(now)
	}
	return [4]slog.Attr{}
}

// countResults puts the call's wrappers around the breaker and budget of its policy.
func (c *call) countResults() {
	if c.policy.Breaker != nil {
		c.breaker = callBreaker{CircuitBreaker: c.policy.Breaker, c: c}
		c.policy.Breaker = &c.breaker
	}
	if c.policy.Budget != nil {
		c.budget = callBudget{RetryBudget: c.policy.Budget, c: c}
		c.policy.Budget = &c.budget
	}
}

// result is r, or a failure when the attempt that just ended failed the service although
// its class is a decisive answer (c.failed), a throttle included when throttles count (for
// the budget). A result the loop ignores (the caller's own cancellation) stays ignored.
func (c *call) result(r retry.Result, throttles bool) retry.Result {
	if c.failed.Load() && (r == retry.ResultSuccess || throttles && r == retry.ResultThrottled) {
		return retry.ResultFailure
	}
	return r
}
