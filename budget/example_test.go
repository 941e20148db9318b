package budget_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/budget"
)

// Share one budget among all the loops that call a service: when the service is down,
// retries stay within 10% of the attempts (here 11 retries among 111 attempts), and the
// loops stop with ReasonRetryBudgetExhausted instead of storming it.
func ExampleRatio() {
	b, err := budget.NewRatio(budget.RatioConfig{Ratio: 0.1, MinRetriesPerSecond: retry.None})
	if err != nil {
		panic(err)
	}
	zero, _ := backoff.New(backoff.Config{Kind: backoff.Constant, Jitter: backoff.NoJitter}) // no waits, for the example
	p := &retry.Policy{MaxAttempts: 3, Backoff: zero, Budget: b}
	attempts, stopped := 0, 0
	for range 100 {
		err := retry.Do(context.Background(), p, func(context.Context) error {
			attempts++
			return errors.New("503 from upstream")
		})
		if errors.Is(err, retry.ErrRetryBudgetExhausted) {
			stopped++
		}
	}
	fmt.Printf("100 loops, %d attempts, %d stopped by the budget\n", attempts, stopped)
	// Output:
	// 100 loops, 111 attempts, 100 stopped by the budget
}

// gRPC's retry throttling: failures take a token, successes give back 0.1, and retries stop
// while half the tokens or fewer remain.
func ExampleTokenBucket() {
	b, err := budget.NewTokenBucket(budget.TokenBucketConfig{MaxTokens: 10, TokenRatio: 0.1})
	if err != nil {
		panic(err)
	}
	for range 5 {
		b.Done(false, retry.ResultFailure)
	}
	fmt.Println(b.Tokens(), b.AllowRetry())
	for range 3 {
		b.Done(false, retry.ResultSuccess)
	}
	fmt.Println(b.Tokens(), b.AllowRetry())
	// Output:
	// 5 false
	// 5.3 true
}

// A budget per destination: the failures of one host spend its own tokens, not another's.
func ExampleGroup() {
	g, err := budget.NewGroup(budget.GroupConfig{TokenBucket: &budget.TokenBucketConfig{MaxTokens: 4}})
	if err != nil {
		panic(err)
	}
	sick := g.Budget("https://sick.example:443")
	for range 2 {
		sick.Done(false, retry.ResultFailure)
	}
	fmt.Println("sick:", sick.AllowRetry(), "healthy:", g.Budget("https://healthy.example:443").AllowRetry())
	// Output:
	// sick: false healthy: true
}
