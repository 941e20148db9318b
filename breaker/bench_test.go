package breaker

import (
	"context"
	"testing"

	"github.com/retrykit/retry"
)

// BenchmarkSuccess is the two-step success path in CLOSED with the consecutive-failure rule
// (the default): no lock, no clock, no write.
func BenchmarkSuccess(b *testing.B) {
	br, _ := New(Config{})
	for b.Loop() {
		token, _, _ := br.Allow()
		br.Done(token, retry.ResultSuccess)
	}
}

func BenchmarkSuccessParallel(b *testing.B) {
	br, _ := New(Config{})
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			token, _, _ := br.Allow()
			br.Done(token, retry.ResultSuccess)
		}
	})
}

// BenchmarkExecute is the wrapped form's success path.
func BenchmarkExecute(b *testing.B) {
	br, _ := New(Config{})
	ctx := context.Background()
	op := func(context.Context) error { return nil }
	for b.Loop() {
		_ = br.Execute(ctx, op)
	}
}

// BenchmarkSuccessRateRule is the success path with the failure-rate rule: a lock and a
// clock read per result.
func BenchmarkSuccessRateRule(b *testing.B) {
	br, _ := New(Config{FailureRate: 0.5})
	for b.Loop() {
		token, _, _ := br.Allow()
		br.Done(token, retry.ResultSuccess)
	}
}

// BenchmarkOpenRefusal is a refused call in OPEN (a lock and a clock read).
func BenchmarkOpenRefusal(b *testing.B) {
	br, _ := New(Config{ConsecutiveFailures: 1})
	token, _, _ := br.Allow()
	br.Done(token, retry.ResultFailure)
	for b.Loop() {
		br.Allow()
	}
}

func BenchmarkGroupGet(b *testing.B) {
	g, _ := NewGroup(GroupConfig{})
	g.Get("https://example.com:443")
	for b.Loop() {
		g.Get("https://example.com:443")
	}
}
