package retry

import (
	"context"
	"testing"
)

// Issue 32 item 1: Metrics counts the attempts the service throttled, once each (a stop
// without an attempt repeats the last attempt's fields and is not counted again), apart from
// the attempts, without allocating.
func TestMetricsCountThrottledAttempts(t *testing.T) {
	var m Metrics
	ctx := context.Background()
	m.Observe(ctx, Decision{Attempt: 1, Status: 429, Throttled: true, Retry: true, Reason: ReasonRetryAfter})
	m.Observe(ctx, Decision{Attempt: 2, Status: 503, Retry: true, Reason: ReasonRetryableStatus})
	m.Observe(ctx, Decision{Attempt: 3, Status: 429, Throttled: true, Reason: ReasonAttemptsExhausted})
	m.Observe(ctx, Decision{Attempt: 3, Status: 429, Throttled: true, NoAttempt: true, Reason: ReasonCanceled})
	if s := m.Snapshot(); s.Attempts != 3 || s.Throttled != 2 {
		t.Errorf("attempts %d, throttled %d; want 3, 2", s.Attempts, s.Throttled)
	}
	d := Decision{Attempt: 1, Status: 429, Throttled: true, Retry: true, Reason: ReasonRetryAfter}
	if allocs := testing.AllocsPerRun(100, func() { m.Observe(ctx, d) }); allocs != 0 {
		t.Errorf("Observe allocates %v times a decision, want 0", allocs)
	}
}
