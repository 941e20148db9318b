package otelretry_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/otelretry"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// A database loop labelled through its context, its metrics read from a ManualReader (the
// way to see them in a test, without a collector).
func ExampleWithAttributes() {
	reader := sdkmetric.NewManualReader()
	obs, err := otelretry.New(otelretry.Config{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		panic(err)
	}
	policy := &retry.Policy{MaxAttempts: 3, OnDecision: obs.Observe}

	ctx := otelretry.WithAttributes(context.Background(), attribute.String("db.system.name", "postgresql"))
	calls := 0
	_, err = retry.DoValue(ctx, policy, func(context.Context) (int, error) {
		if calls++; calls == 1 {
			return 0, errors.New("connection reset")
		}
		return 42, nil
	})
	if err != nil {
		panic(err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if m.Name == "retry.stops" {
			p := m.Data.(metricdata.Sum[int64]).DataPoints[0]
			fmt.Println(m.Name, p.Value, p.Attributes.Encoded(attribute.DefaultEncoder()))
		}
	}
	// Output:
	// retry.stops 1 db.system.name=postgresql,retry.outcome=success,retry.reason=success,retry.status_class=none
}
