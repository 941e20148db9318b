package retryhttp_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// With Breakers, each destination has its own circuit breaker: a host that is down opens
// its breaker and is then refused at once, while another host is served as usual (SPEC R5).
func TestBreakerPerDestination(t *testing.T) {
	down := server(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503}}})
	up := server(t, retrytest.Script{})
	group, err := breaker.NewGroup(breaker.GroupConfig{Breaker: breaker.Config{ConsecutiveFailures: 2, OpenTimeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	var breakerStates []string
	policy := fast(t, 5)
	policy.OnDecision = func(_ context.Context, d retry.Decision) { breakerStates = append(breakerStates, attr(d, "breaker")) }
	c := client(t, &retryhttp.Transport{Policy: policy, Breakers: group})

	_, err = c.Get(down.URL)
	if !errors.Is(err, retry.ErrCircuitOpen) || down.Requests() != 2 {
		t.Fatalf("first GET of the failing host: %v after %d requests", err, down.Requests())
	}
	// The second failure opens the breaker for a minute: the loop stops with it at once.
	if want := []string{"CLOSED", "OPEN"}; !slices.Equal(breakerStates, want) {
		t.Errorf("breaker states in the records: %v, want %v", breakerStates, want)
	}
	resp, err := c.Get(up.URL)
	if err != nil {
		t.Fatalf("the healthy host is refused too: %v", err)
	}
	readAll(t, resp)
	_, err = c.Get(down.URL)
	if !errors.Is(err, retry.ErrCircuitOpen) || down.Requests() != 2 {
		t.Fatalf("second GET of the failing host: %v after %d requests", err, down.Requests())
	}
	if group.Len() != 2 {
		t.Errorf("group keeps %d destinations, want 2", group.Len())
	}
}
