package fleet_test

import (
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/retryhttp"
)

// A BreakerGroup serves as retryhttp.Transport.Breakers: two replicas' transports share one
// breaker per destination, so the host that is down for the fleet is refused at replica b,
// which never called it, without a request, while the other host is served.
func TestBreakerGroupAsTransportBreakers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const down, up = "http://down.example/", "http://up.example/"
		var sent []string
		base := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			sent = append(sent, req.URL.Host)
			status := http.StatusOK
			if req.URL.Host == "down.example" {
				status = http.StatusServiceUnavailable
			}
			return &http.Response{StatusCode: status, Body: http.NoBody, Request: req}, nil
		})
		store := new(fleet.MemoryStore)
		clients := make([]*http.Client, 2)
		for i := range clients {
			g, err := fleet.NewBreakerGroup(fleet.BreakerConfig{
				Fleet:   fleet.Config{Store: store, Name: "svc", Replica: string(rune('a' + i)), Interval: 100 * time.Millisecond},
				Breaker: breaker.Config{ConsecutiveFailures: 1000}, OpenRule: fleet.OpenRule{MinFleetCalls: 6}})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			clients[i] = &http.Client{Transport: &retryhttp.Transport{Base: base, Breakers: g, Policy: &retry.Policy{MaxAttempts: 1}}}
		}
		for range 6 { // replica a alone sees 6 failures: the fleet's rule is met
			if resp, err := clients[0].Get(down); err == nil {
				resp.Body.Close()
			}
		}
		time.Sleep(300 * time.Millisecond) // two intervals and a half
		_, err := clients[1].Get(down)
		if !errors.Is(err, retry.ErrCircuitOpen) {
			t.Errorf("replica b, host down for the fleet: %v, want circuit_open", err)
		}
		resp, err := clients[1].Get(up)
		if err != nil {
			t.Fatalf("replica b, the other host: %v", err)
		}
		resp.Body.Close()
		if len(sent) != 7 || sent[6] != "up.example" {
			t.Errorf("requests sent %v, want 6 to down.example, then only up.example's", sent)
		}
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// A BudgetGroup serves as retryhttp.Transport.Budgets: two replicas share one retry budget
// per destination (issue 24 item 7), so the host that fails every request gets at most the
// fleet's floor of retries, the two replicas' together, and the healthy host's budget is
// left whole.
func TestBudgetGroupAsTransportBudgets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const down, up = "http://down.example/", "http://up.example/"
		sent := map[string]int{}
		base := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			sent[req.URL.Host]++
			status := http.StatusOK
			if req.URL.Host == "down.example" {
				status = http.StatusServiceUnavailable
			}
			return &http.Response{StatusCode: status, Body: http.NoBody, Request: req}, nil
		})
		store := new(fleet.MemoryStore)
		var groups []*fleet.BudgetGroup
		clients := make([]*http.Client, 2)
		for i := range clients {
			g, err := fleet.NewBudgetGroup(fleet.BudgetConfig{
				Fleet:  fleet.Config{Store: store, Name: "svc", Replica: string(rune('a' + i)), Interval: 100 * time.Millisecond},
				Budget: budget.RatioConfig{Ratio: 0.01, MinRetriesPerSecond: 1, Window: 10 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			groups = append(groups, g)
			clients[i] = &http.Client{Transport: &retryhttp.Transport{Base: base, Budgets: g,
				Policy: &retry.Policy{MaxAttempts: 5}}}
		}
		for _, g := range groups { // both have seen the fleet's view of both hosts
			g.Get("http://down.example:80")
			g.Get("http://up.example:80")
			if err := g.SyncNow(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		for range 5 { // 5 requests to each host from each replica, 1 s apart: within one window
			for _, c := range clients {
				for _, url := range []string{down, up} {
					if resp, err := c.Get(url); err == nil {
						resp.Body.Close()
					}
				}
			}
			time.Sleep(time.Second)
		}
		// down: 10 first attempts, 0.01 × requests + 10 (the floor over 10 s) retries at most,
		// where the replicas' own budgets would allow 10 each.
		if retries := sent["down.example"] - 10; retries > 10 || retries < 5 {
			t.Errorf("%d retries to the failing host from both replicas, want the fleet's floor of 10 at most, and used", retries)
		}
		if sent["up.example"] != 10 {
			t.Errorf("%d requests to the healthy host, want 10", sent["up.example"])
		}
		for i, g := range groups {
			if got := g.Get("http://up.example:80").Tokens(); got < 4 {
				t.Errorf("replica %d: the healthy host's grant is %d, want its share of the floor (about 5)", i, got)
			}
		}
	})
}
