package fleet_test

import (
	"context"
	"fmt"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/fleet"
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
