package otelretry

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/retrykit/retry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
)

// TestWithAttributesOnLoops: a database loop (no method) and an HTTP loop share one policy
// whose OnDecision is the observer's; the attributes each caller put in its context label its
// own loop's metrics, nested WithAttributes add up, and a key of the package's own is left
// out (issue 17 item 9). A context without them adds none.
func TestWithAttributesOnLoops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, reader := newMetricObserver(t, Config{})
		p := &retry.Policy{MaxAttempts: 2, Backoff: constant1s, OnDecision: o.Observe}
		db := attribute.String("db.system.name", "postgresql")
		op := attribute.String("db.operation.name", "SELECT")
		dbCtx := WithAttributes(WithAttributes(context.Background(), db), op, ReasonKey.String("forged"))
		boom := retry.Outcome{Err: errors.New("connection reset")}
		_, final, err := retry.Run(dbCtx, p, script(nil, boom, retry.Outcome{}))
		final.End()
		if err != nil {
			t.Fatal(err)
		}
		pricing := attribute.String("upstream", "pricing")
		_, final, _ = retry.Run(WithAttributes(context.Background(), pricing), p,
			script(httpLabels("GET", "http://pricing.test/"), retry.Outcome{Status: 200}))
		final.End()
		o.Observe(context.Background(), retry.Decision{Attempt: 1, Reason: retry.ReasonSuccess, Class: retry.ClassSuccess})

		get := attribute.String("http.request.method", "GET")
		got := collect(t, reader)
		metricdatatest.AssertAggregationsEqual(t, sum(point(2, db, op), point(1, pricing, get), point(1)),
			got["retry.attempts"].Data, metricdatatest.IgnoreTimestamp())
		metricdatatest.AssertAggregationsEqual(t, sum(
			point(1, db, op, ReasonKey.String("success"), OutcomeKey.String("success"), StatusClassKey.String("none")),
			point(1, pricing, get, ReasonKey.String("success"), OutcomeKey.String("success"), StatusClassKey.String("2xx")),
			point(1, ReasonKey.String("success"), OutcomeKey.String("success"), StatusClassKey.String("none")),
		), got["retry.stops"].Data, metricdatatest.IgnoreTimestamp())
		metricdatatest.AssertAggregationsEqual(t, sum(point(1, db, op, ReasonKey.String("retryable_error"), StatusClassKey.String("none"))),
			got["retry.retries"].Data, metricdatatest.IgnoreTimestamp())
		metricdatatest.AssertAggregationsEqual(t, sum(point(1, db, op)), got["retry.successes_after_retry"].Data, metricdatatest.IgnoreTimestamp())
	})
}

// TestWithAttributesOnAttempts: the request context's attributes label the attempt
// durations of Observer.Transport too.
func TestWithAttributesOnAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newTraced(t)
		upstream := attribute.String("upstream", "orders")
		req, _ := http.NewRequestWithContext(WithAttributes(context.Background(), upstream), "GET", "http://orders.test/o/1", nil)
		resp, err := tr.obs.Transport(&fakeServer{statuses: []int{200}}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := collect(t, tr.reader)
		metricdatatest.AssertAggregationsEqual(t, metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality,
			DataPoints: []metricdata.HistogramDataPoint[float64]{
				attemptPoint(1, attribute.NewSet(upstream, attribute.String("http.request.method", "GET"), StatusClassKey.String("2xx"))),
			}}, got["retry.attempt.duration"].Data, metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars())
	})
}
