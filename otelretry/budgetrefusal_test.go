package otelretry

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
)

// Issue 21 item 1: a refusal of the default retry budget gives a signal (envoyproxy/envoy
// #15168: refusals that gave none): retry.stops counts it under reason
// retry_budget_exhausted. Through a zero Transport, 10 GETs to a host answering 503 spend
// its 20 retries; the 2 after them are refused after their first attempt.
func TestBudgetRefusalCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, reader := newMetricObserver(t, Config{})
		rt, err := retrytest.NewRoundTripper(retrytest.Script{Steps: []retrytest.Step{{Status: 503}}})
		if err != nil {
			t.Fatal(err)
		}
		client := &http.Client{Transport: &retryhttp.Transport{Base: rt, Policy: &retry.Policy{OnDecision: o.Observe}}}
		for i := range 12 {
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://pricing.test/price", nil)
			resp, err := client.Do(req)
			if resp != nil {
				resp.Body.Close()
			}
			want := retry.ErrAttemptsExhausted
			if i >= 10 {
				want = retry.ErrRetryBudgetExhausted
			}
			if !errors.Is(err, want) {
				t.Fatalf("GET %d: %v, want %v", i+1, err, want)
			}
		}
		get := attribute.String("http.request.method", "GET")
		metricdatatest.AssertAggregationsEqual(t, sum(
			point(10, get, ReasonKey.String("attempts_exhausted"), OutcomeKey.String("failure"), StatusClassKey.String("5xx")),
			point(2, get, ReasonKey.String("retry_budget_exhausted"), OutcomeKey.String("failure"), StatusClassKey.String("5xx"))),
			collect(t, reader)["retry.stops"].Data, metricdatatest.IgnoreTimestamp())
	})
}
