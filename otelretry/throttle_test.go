package otelretry

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
)

// Issue 32 item 1: retry.throttles counts the attempts the service throttled (a 429), with the
// response's status class, once each: the stop that a cancellation decides without a new
// attempt repeats the last attempt's fields and adds nothing. The span event's attributes say
// retry.throttled.
func TestThrottlesCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, reader := newMetricObserver(t, Config{})
		p := &retry.Policy{MaxAttempts: 3, Backoff: constant1s, OnDecision: o.Observe}
		ctx := context.Background()
		getItems := httpLabels("GET", "http://api.example/items")
		_, final, err := retry.Run(ctx, p, script(getItems, retry.Outcome{Status: 429}, retry.Outcome{Status: 503},
			retry.Outcome{Status: 200}))
		final.End()
		if err != nil {
			t.Fatal(err)
		}
		canceled, cancel := context.WithCancel(ctx)
		go func() { time.Sleep(500 * time.Millisecond); cancel() }()
		_, final, err = retry.Run(canceled, p, script(getItems, retry.Outcome{Status: 429}))
		final.End()
		if !errors.Is(err, retry.ErrCanceled) {
			t.Fatalf("err = %v, want canceled", err)
		}
		get := attribute.String("http.request.method", "GET")
		metricdatatest.AssertAggregationsEqual(t, sum(point(2, get, StatusClassKey.String("4xx"))),
			collect(t, reader)["retry.throttles"].Data, metricdatatest.IgnoreTimestamp())

		d := retry.Decision{Attempt: 1, Status: 429, Throttled: true, Retry: true, Reason: retry.ReasonRetryAfter}
		found := false
		for _, kv := range DecisionAttributes(d) {
			found = found || kv == attribute.Bool("retry.throttled", true)
		}
		if !found {
			t.Errorf("DecisionAttributes %v: no retry.throttled", DecisionAttributes(d))
		}
	})
}
