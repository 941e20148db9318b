package otelretry

import (
	"context"
	"testing"

	"github.com/retrykit/retry"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
)

// TestObserveHedging: a lost attempt counts as an attempt and nothing else, a hedge as an
// attempt and a hedge, a refused hedge as a refusal; the loop's one stop counts once.
func TestObserveHedging(t *testing.T) {
	o, reader := newMetricObserver(t, Config{})
	ctx := context.Background()
	o.Observe(ctx, retry.Decision{Attempt: 1, Lost: true, Class: retry.ClassRetryable})
	o.Observe(ctx, retry.Decision{Attempt: 1, Hedge: true, Winner: true, Reason: retry.ReasonSuccess, Class: retry.ClassSuccess})
	o.Observe(ctx, retry.Decision{Attempt: 1, Reason: retry.ReasonSuccess, Class: retry.ClassSuccess,
		HedgeRefused: retry.HedgeRefusedHedgeBudget})
	m := collect(t, reader)
	metricdatatest.AssertEqual(t, metricdata.Metrics{Name: "retry.hedges", Unit: "{hedge}",
		Description: "Hedges sent, by whether their answer was the one used (retry.hedge.won).",
		Data:        sum(point(1, HedgeWonKey.Bool(true)))}, m["retry.hedges"], metricdatatest.IgnoreTimestamp())
	metricdatatest.AssertEqual(t, metricdata.Metrics{Name: "retry.hedges.refused", Unit: "{hedge}",
		Description: "Hedges an attempt's slowness called for and the loop did not send, by refusal (retry.reason).",
		Data:        sum(point(1, ReasonKey.String("hedge_budget_exhausted")))}, m["retry.hedges.refused"], metricdatatest.IgnoreTimestamp())
	var stops, attempts int64
	for _, p := range m["retry.stops"].Data.(metricdata.Sum[int64]).DataPoints {
		stops += p.Value
	}
	for _, p := range m["retry.attempts"].Data.(metricdata.Sum[int64]).DataPoints {
		attempts += p.Value
	}
	if stops != 2 || attempts != 3 {
		t.Errorf("%d stops, %d attempts; want 2 (the lost attempt's record is none), 3 (1 + the hedge + 1)", stops, attempts)
	}
}
