package retryhttp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// One shared client, two upstreams with different needs: a quick pricing read allowed two
// attempts, chosen per request through its context, and everything else under the
// Transport's policy. Each host also gets a retry budget of its own.
func ExampleWithPolicy() {
	rt, err := retrytest.NewRoutedRoundTripper(retrytest.Routes{
		"pricing.test/": {Steps: []retrytest.Step{{Status: 503}}},
		"orders.test/":  {Steps: []retrytest.Step{{Status: 503}, {Status: 503}, {Status: 201}}},
	})
	if err != nil {
		panic(err)
	}
	budgets, err := budget.NewGroup(budget.GroupConfig{})
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: &retryhttp.Transport{Base: rt, Budgets: budgets,
		Policy: &retry.Policy{MaxAttempts: 4, Timeout: 10 * time.Second}}}
	pricing := &retry.Policy{MaxAttempts: 2, AttemptTimeout: 800 * time.Millisecond, Timeout: 2 * time.Second}

	ctx := retryhttp.WithPolicy(context.Background(), pricing)
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://pricing.test/price?sku=a", nil)
	_, err = client.Do(req)
	var stop *retry.Error
	if errors.As(err, &stop) {
		fmt.Println("pricing:", stop.Reason, "after", stop.Attempts, "attempts, status", stop.Status)
	}

	req, _ = http.NewRequest("PUT", "http://orders.test/orders/7", nil)
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("orders:", resp.StatusCode, "after", len(rt.Received())-2, "attempts")
	// Output:
	// pricing: attempts_exhausted after 2 attempts, status 503
	// orders: 201 after 3 attempts
}
