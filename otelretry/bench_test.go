package otelretry

import (
	"testing"

	"github.com/retrykit/retry"
)

// BenchmarkOnDecision measures the metrics hook on a retry and on a stop, with the SDK.
func BenchmarkOnDecision(b *testing.B) {
	o, _ := newMetricObserver(b, Config{})
	retryD := retry.Decision{Attempt: 1, Method: "GET", URL: "http://h/x", Status: 503, Retry: true,
		Reason: retry.ReasonRetryableStatus, Class: retry.ClassRetryable}
	stopD := retry.Decision{Attempt: 2, Method: "GET", URL: "http://h/x", Status: 200,
		Reason: retry.ReasonSuccess, Class: retry.ClassSuccess}
	b.ReportAllocs()
	for b.Loop() {
		o.OnDecision(retryD)
		o.OnDecision(stopD)
	}
}
