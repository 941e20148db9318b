package fleet_test

import (
	"context"
	"fmt"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/ratelimit"
)

// Two replicas share a breaker through a store (here in memory; redisfleet.Store in
// production). The failures replica a sees open the breaker fleet-wide: replica b refuses
// calls without having failed once.
func ExampleNewBreaker() {
	store := new(fleet.MemoryStore)
	newReplica := func(name string) *fleet.Breaker {
		b, err := fleet.NewBreaker(fleet.BreakerConfig{
			Fleet:   fleet.Config{Store: store, Name: "payments", Replica: name},
			Breaker: breaker.Config{ConsecutiveFailures: 100}, // let the fleet rule decide
		})
		if err != nil {
			panic(err)
		}
		return b
	}
	a, b := newReplica("a"), newReplica("b")
	defer a.Close()
	defer b.Close()

	policy := &retry.Policy{MaxAttempts: 1, Breaker: a}
	for range 20 { // fleet.DefaultMinFleetCalls calls, all failing
		_ = retry.Do(context.Background(), policy, func(context.Context) error { return fmt.Errorf("503") })
	}
	ctx := context.Background()
	_ = a.SyncNow(ctx) // a tick: a's counts reach the fleet, whose rule opens the breaker
	_ = a.SyncNow(ctx) // the next tick tells the store (a ticks at once by itself, too)
	_ = b.SyncNow(ctx) // b's tick reads the fleet's state
	_, ok, _ := b.Allow()
	fmt.Println("a:", a.State(), "b:", b.State(), "b admits:", ok)
	// Output: a: OPEN b: OPEN b admits: false
}

// A BudgetGroup keeps one retry budget per destination for the whole fleet (here one replica,
// in memory): each destination's retries come from its own grant, so a sick host does not
// spend the others'. Set it as retryhttp.Transport.Budgets.
func ExampleNewBudgetGroup() {
	budgets, err := fleet.NewBudgetGroup(fleet.BudgetConfig{
		Fleet:  fleet.Config{Store: new(fleet.MemoryStore), Name: "payments", Replica: "a"},
		Budget: budget.RatioConfig{Ratio: 0.1, MinRetriesPerSecond: 1, Window: 10 * time.Second},
	})
	if err != nil {
		panic(err)
	}
	defer budgets.Close()
	sick, healthy := budgets.Get("https://sick.example:443"), budgets.Get("https://ok.example:443")
	_ = budgets.SyncNow(context.Background()) // the store grants each its floor: 1/s × 10 s
	spent := 0
	for sick.AllowRetry() {
		spent++
	}
	fmt.Println("sick host retries:", spent, "healthy host's grant left:", healthy.Tokens(), "share:", sick.Share())
	// Output: sick host retries: 10 healthy host's grant left: 10 share: 1
}

// A RateGateGroup gives every destination a rate gate shared by the fleet (here two
// replicas, in memory; redisfleet.Store in production): set it as
// retryhttp.Transport.RateGates. What one replica reads of an API's limit reaches the
// others at their next tick, and each keeps to its part of what is left: of 4 requests
// left before the reset, 2 each, where each alone would send 4.
func ExampleNewRateGateGroup() {
	store := new(fleet.MemoryStore)
	newReplica := func(name string) *fleet.RateGateGroup {
		g, err := fleet.NewRateGateGroup(fleet.RateGateConfig{
			Fleet: fleet.Config{Store: store, Name: "openai-key-1", Replica: name}, // one Name per API key
		})
		if err != nil {
			panic(err)
		}
		return g
	}
	a, b := newReplica("a"), newReplica("b")
	defer a.Close()
	defer b.Close()
	const api = "https://api.openai.com:443"
	now := time.Now()
	// Replica a's answer said 4 of the minute's 100 requests are left (retryhttp reads
	// x-ratelimit-*-requests into these readings).
	a.Gate(api).Observe(now, []ratelimit.Reading{{Quota: "requests", Limit: 100, Remaining: 4, Reset: time.Minute}})
	ctx := context.Background()
	for range 2 { // two ticks each: the store learns the view and both replicas' demands
		_ = a.SyncNow(ctx)
		_ = b.Gate(api).SyncNow(ctx)
	}
	for _, g := range []*fleet.RateGateGroup{a, b} {
		sent := 0
		for range 4 {
			if at, _ := g.Gate(api).Reserve(now, now); at.Equal(now) {
				sent++
			}
		}
		fmt.Println("may send now:", sent, "part:", g.Gate(api).Part())
	}
	// Output:
	// may send now: 2 part: {0 0.5}
	// may send now: 2 part: {0.5 1}
}
