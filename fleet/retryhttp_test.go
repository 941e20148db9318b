package fleet_test

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/ratelimit"
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

// windowAPI is a base transport that plays an API with a limit of limit requests per fixed
// 1 s window, from its start, published in OpenAI's headers on every answer (429 when the
// window is full). It counts the answers by status. Not safe for concurrent use outside a
// synctest bubble's goroutines taking turns.
type windowAPI struct {
	mu       sync.Mutex
	start    time.Time
	limit    int
	window   int64
	count    int
	statuses map[int]int
}

func (a *windowAPI) RoundTrip(req *http.Request) (*http.Response, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	elapsed := time.Since(a.start)
	if k := int64(elapsed / time.Second); k != a.window {
		a.window, a.count = k, 0
	}
	status := http.StatusOK
	if a.count < a.limit {
		a.count++
	} else {
		status = http.StatusTooManyRequests
	}
	a.statuses[status]++
	h := http.Header{}
	h.Set("X-Ratelimit-Limit-Requests", strconv.Itoa(a.limit))
	h.Set("X-Ratelimit-Remaining-Requests", strconv.Itoa(a.limit-a.count))
	h.Set("X-Ratelimit-Reset-Requests", (time.Duration(a.window+1)*time.Second - elapsed).String())
	return &http.Response{StatusCode: status, Header: h, Body: http.NoBody, Request: req}, nil
}

// A RateGateGroup serves as retryhttp.Transport.RateGates (issue 33): two replicas' transports
// share the API's limit of 4 requests a second. Each has called it once (2 left in the
// window); from the next tick on, 8 calls at once, 4 from each replica, keep to the limit
// between them, with no request answered 429, where with each replica's gate alone a
// admits the 3 it read were left and b the 2 it read, and some are.
func TestRateGateGroupAsTransportRateGates(t *testing.T) {
	for _, shared := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			api := &windowAPI{start: time.Now(), limit: 4, statuses: map[int]int{}}
			store := new(fleet.MemoryStore)
			clients := make([]*http.Client, 2)
			for i := range clients {
				var gates retryhttp.RateGateGroup = new(ratelimit.Group)
				if shared {
					g, err := fleet.NewRateGateGroup(fleet.RateGateConfig{
						Fleet: fleet.Config{Store: store, Name: "api-key", Replica: string(rune('a' + i)), Interval: 100 * time.Millisecond}})
					if err != nil {
						t.Fatal(err)
					}
					defer g.Close()
					gates = g
				}
				clients[i] = &http.Client{Transport: &retryhttp.Transport{Base: api, RateGates: gates,
					Policy: &retry.Policy{MaxAttempts: 5}}}
			}
			get := func(c *http.Client) {
				resp, err := c.Get("http://api.example/v1/chat/completions")
				if err != nil {
					t.Errorf("shared %v: %v", shared, err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("shared %v: status %d", shared, resp.StatusCode)
				}
			}
			for _, c := range clients {
				get(c)
			}
			time.Sleep(300 * time.Millisecond) // ticks: the fleet's view, and the parts
			var wg sync.WaitGroup
			for _, c := range clients {
				for range 4 {
					wg.Go(func() { get(c) })
				}
			}
			wg.Wait()
			if throttled := api.statuses[http.StatusTooManyRequests]; shared && throttled != 0 || !shared && throttled == 0 {
				t.Errorf("shared %v: %d requests answered 429 (%v), want %s", shared, throttled, api.statuses,
					map[bool]string{true: "none", false: "some"}[shared])
			}
		})
	}
}
