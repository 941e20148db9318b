package otelretry

import (
	"context"
	"testing"

	"github.com/retrykit/retry"
)

// BenchmarkObserve measures the metrics observer on a retry and on a stop, with the SDK.
func BenchmarkObserve(b *testing.B) {
	o, _ := newMetricObserver(b, Config{})
	retryD := retry.Decision{Attempt: 1, Status: 503, Retry: true,
		Reason: retry.ReasonRetryableStatus, Class: retry.ClassRetryable}
	retryD.AddAttrs(httpLabels("GET", "http://h/x")...)
	stopD := retry.Decision{Attempt: 2, Status: 200, Reason: retry.ReasonSuccess, Class: retry.ClassSuccess}
	stopD.AddAttrs(httpLabels("GET", "http://h/x")...)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		o.Observe(ctx, retryD)
		o.Observe(ctx, stopD)
	}
}
