package otelretry

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
)

// Issue 17 item 1: the stop metric of a request the breaker refused before any attempt
// carries the request's http.request.method like every other.
func TestCircuitOpenStopHasMethod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, reader := newMetricObserver(t, Config{})
		rt, err := retrytest.NewRoundTripper(retrytest.Script{Steps: []retrytest.Step{{Status: 500}}})
		if err != nil {
			t.Fatal(err)
		}
		group, err := breaker.NewGroup(breaker.GroupConfig{Breaker: breaker.Config{ConsecutiveFailures: 1}})
		if err != nil {
			t.Fatal(err)
		}
		client := &http.Client{Transport: &retryhttp.Transport{Base: rt, Breakers: group,
			Policy: &retry.Policy{MaxAttempts: 1, OnDecision: o.Observe}}}
		for i, want := range []error{retry.ErrAttemptsExhausted, retry.ErrCircuitOpen} {
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://pricing.test/price?sku=a", nil)
			resp, err := client.Do(req)
			if !errors.Is(err, want) {
				if resp != nil {
					resp.Body.Close()
				}
				t.Fatalf("GET %d: %v, want %v", i+1, err, want)
			}
		}
		get := attribute.String("http.request.method", "GET")
		metricdatatest.AssertAggregationsEqual(t, sum(
			point(1, get, ReasonKey.String("attempts_exhausted"), OutcomeKey.String("failure"), StatusClassKey.String("5xx")),
			point(1, get, ReasonKey.String("circuit_open"), OutcomeKey.String("failure"), StatusClassKey.String("none"))),
			collect(t, reader)["retry.stops"].Data, metricdatatest.IgnoreTimestamp())
	})
}
