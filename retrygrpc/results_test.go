package retrygrpc

import (
	"slices"
	"testing"
	"time"

	"github.com/retrykit/retry"
)

// recordingBreaker is a retry.CircuitBreaker and retry.RetryAfterReceiver that keeps what it
// was told.
type recordingBreaker struct {
	results []retry.Result
	waits   []time.Duration
}

func (b *recordingBreaker) Allow() (uint64, bool, time.Duration) { return 0, true, 0 }
func (b *recordingBreaker) Done(_ uint64, r retry.Result) {
	b.results, b.waits = append(b.results, r), append(b.waits, -1)
}
func (b *recordingBreaker) DoneRetryAfter(_ uint64, r retry.Result, d time.Duration) {
	b.results, b.waits = append(b.results, r), append(b.waits, d)
}

// Issue 32 item 5: the call's wrapper of the target's breaker passes a wait on to a breaker
// that takes it (retry.RetryAfterReceiver), with the call's result (a failure for a pushback
// that asked not to retry), and to Done of one that does not.
func TestCallBreakerPassesTheWait(t *testing.T) {
	inner := &recordingBreaker{}
	c := &call{policy: retry.Policy{Breaker: inner}}
	c.countResults()
	receiver, ok := c.policy.Breaker.(retry.RetryAfterReceiver)
	if !ok {
		t.Fatal("the call's breaker is no retry.RetryAfterReceiver")
	}
	receiver.DoneRetryAfter(1, retry.ResultFailure, 2*time.Second)
	c.failed.Store(true)
	receiver.DoneRetryAfter(1, retry.ResultSuccess, time.Second)
	receiver.DoneRetryAfter(1, retry.ResultThrottled, time.Second)
	want := []retry.Result{retry.ResultFailure, retry.ResultFailure, retry.ResultThrottled}
	if !slices.Equal(inner.results, want) || !slices.Equal(inner.waits, []time.Duration{2 * time.Second, time.Second, time.Second}) {
		t.Errorf("told %v with waits %v, want %v with 2s, 1s, 1s", inner.results, inner.waits, want)
	}
	plain := struct{ retry.CircuitBreaker }{&recordingBreaker{}}
	c = &call{policy: retry.Policy{Breaker: plain}}
	c.countResults()
	c.policy.Breaker.(retry.RetryAfterReceiver).DoneRetryAfter(1, retry.ResultFailure, time.Second)
	if got := plain.CircuitBreaker.(*recordingBreaker); !slices.Equal(got.waits, []time.Duration{-1}) {
		t.Errorf("a breaker without DoneRetryAfter was told waits %v, want one Done", got.waits)
	}
}

// Issue 32 item 1: a RESOURCE_EXHAUSTED whose pushback asked not to retry stays a throttle for
// the breaker (the service answers), and is gRFC A6's throttling failure for the budget.
func TestThrottleThatAskedNotToRetry(t *testing.T) {
	c := &call{}
	c.failed.Store(true)
	if got := c.result(retry.ResultThrottled, false); got != retry.ResultThrottled {
		t.Errorf("for the breaker: %v, want throttled", got)
	}
	if got := c.result(retry.ResultThrottled, true); got != retry.ResultFailure {
		t.Errorf("for the budget: %v, want failure", got)
	}
	if got := c.result(retry.ResultIgnored, true); got != retry.ResultIgnored {
		t.Errorf("an ignored result: %v, want ignored", got)
	}
}
