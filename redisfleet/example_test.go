package redisfleet_test

import (
	"log"
	"net/http"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet"
	"github.com/retrykit/retry/retryhttp"
)

// Every replica of a service shares one circuit breaker per destination and one retry
// budget through Redis. (Not run: it needs a Redis.)
func ExampleNew() {
	client, err := redisfleet.NewClient("redis://127.0.0.1:6379/0")
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	store := redisfleet.New(client, "")
	breakers, err := fleet.NewBreakerGroup(fleet.BreakerConfig{Fleet: fleet.Config{Store: store, Name: "billing"}})
	if err != nil {
		log.Fatal(err)
	}
	defer breakers.Close()
	retries, err := fleet.NewBudget(fleet.BudgetConfig{Fleet: fleet.Config{Store: store, Name: "billing"}})
	if err != nil {
		log.Fatal(err)
	}
	defer retries.Close()
	c := &http.Client{Transport: &retryhttp.Transport{Breakers: breakers, Policy: &retry.Policy{Budget: retries}}}
	resp, err := c.Get("https://billing.internal/health")
	if err != nil {
		log.Print(err) // a *retry.Error says circuit_open when the fleet's breaker is OPEN
		return
	}
	resp.Body.Close()
}
