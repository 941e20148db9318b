package budget

import (
	"testing"
	"testing/synctest"

	"github.com/retrykit/retry"
)

// Issue 32 item 1: a throttle (retry.ResultThrottled) is no failure and no success. The Quota
// counts it as an attempt, for its allowance of a tenth of the last second's attempts, and
// gives no retry back for it.
func TestQuotaThrottle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, _ := NewQuota(QuotaConfig{})
		for q.AllowRetry() {
		}
		requests(q, 100, retry.ResultThrottled)
		if got := q.Retries(); got != 0 {
			t.Fatalf("%v retries after 100 throttles, want 0: a throttle gives nothing back", got)
		}
		// 300 throttled attempts and 30 successes in the second: an allowance of 33, which
		// the successes fill from 0 to 30. Without the throttles counted, the allowance
		// would be the 20 of the floor.
		requests(q, 200, retry.ResultThrottled)
		requests(q, 30, retry.ResultSuccess)
		if got := q.Retries(); got != 30 {
			t.Fatalf("%v retries, want 30", got)
		}
		requests(q, 10, retry.ResultSuccess)
		if got := q.Retries(); got != 34 {
			t.Fatalf("%v retries, want 34: 340 attempts in the second", got)
		}
	})
}

// A Ratio counts a throttled attempt as a request, as any attempt: the service received it.
func TestRatioThrottle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := NewRatio(RatioConfig{MinRetriesPerSecond: retry.None})
		requests(b, 100, retry.ResultThrottled)
		if got := allowed(b, 20); got != 10 {
			t.Fatalf("%d retries after 100 throttled requests, want 10", got)
		}
	})
}

// A TokenBucket neither takes a token for a throttle nor gives one back, unlike a failure
// and a success; nor for a Result it does not know.
func TestTokenBucketThrottle(t *testing.T) {
	b, _ := NewTokenBucket(TokenBucketConfig{MaxTokens: 10, TokenRatio: 0.5})
	requests(b, 4, retry.ResultFailure)
	requests(b, 100, retry.ResultThrottled)
	requests(b, 100, retry.Result(200))
	if got := b.Tokens(); got != 6 {
		t.Fatalf("%v tokens after 4 failures and 200 throttles or unknown results, want 6", got)
	}
	if !b.AllowRetry() {
		t.Fatal("retry refused with 6 of 10 tokens")
	}
	requests(b, 2, retry.ResultSuccess)
	if got := b.Tokens(); got != 7 {
		t.Fatalf("%v tokens after 2 successes, want 7", got)
	}
}
