package fleet_test

import (
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
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
				Breaker: breaker.Config{ConsecutiveFailures: 1000}, MinCalls: 6})
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
