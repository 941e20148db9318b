package budget_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
)

var errDown = errors.New("service down")

// A drained budget stops a loop with ReasonRetryBudgetExhausted after its first attempt,
// without waiting, and never blocks a first attempt.
func TestBudgetStopsRetriesNotFirstAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := budget.NewTokenBucket(budget.TokenBucketConfig{MaxTokens: 4, TokenRatio: 1})
		p := &retry.Policy{MaxAttempts: 10, Budget: b}
		calls := 0
		start := time.Now()
		err := retry.Do(context.Background(), p, func(context.Context) error { calls++; return errDown })
		// Tokens 4 → 3 (retry) → 2 (not above half): stop after attempt 2, before the wait.
		var stop *retry.Error
		if !errors.As(err, &stop) || stop.Reason != retry.ReasonRetryBudgetExhausted || calls != 2 ||
			!errors.Is(err, retry.ErrRetryBudgetExhausted) || !errors.Is(err, errDown) {
			t.Fatalf("calls %d, err %v", calls, err)
		}
		if elapsed := time.Since(start); elapsed > 100*time.Millisecond { // one backoff wait, none after the refusal
			t.Fatalf("stopped after %v", elapsed)
		}
		for range 5 { // first attempts still run, and their successes refill the bucket
			if err := retry.Do(context.Background(), p, func(context.Context) error { calls++; return nil }); err != nil {
				t.Fatal(err)
			}
		}
		if calls != 7 || b.Tokens() != 4 {
			t.Fatalf("calls %d, tokens %v", calls, b.Tokens())
		}
		err = retry.Do(context.Background(), p, func(context.Context) error { calls++; return errDown })
		if calls != 9 || !errors.Is(err, retry.ErrRetryBudgetExhausted) {
			t.Fatalf("calls %d, err %v", calls, err)
		}
	})
}

// Ten loops share a Ratio budget of 10% with no floor against a service that is down:
// 10 first attempts allow one retry in all.
func TestRatioBudgetSharedByLoops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := budget.NewRatio(budget.RatioConfig{Ratio: 0.1, MinRetriesPerSecond: retry.None})
		p := &retry.Policy{MaxAttempts: 3, Budget: b}
		calls, stopped := 0, 0
		for range 10 {
			err := retry.Do(context.Background(), p, func(context.Context) error { calls++; return errDown })
			if errors.Is(err, retry.ErrRetryBudgetExhausted) {
				stopped++
			}
		}
		// Loops 1-9 stop after one attempt (k retries+1 > 0.1 × k requests); loop 10, with
		// 10 requests counted, retries once; the retry makes 11 requests, 2 > 1.1: stop.
		if calls != 11 || stopped != 10 {
			t.Fatalf("calls %d, budget stops %d", calls, stopped)
		}
	})
}
