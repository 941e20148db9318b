package budget

import (
	"testing"

	"github.com/retrykit/retry"
)

// BenchmarkRatioAllowRetry is the check before a retry: a lock and a monotonic clock read.
func BenchmarkRatioAllowRetry(b *testing.B) {
	r, _ := NewRatio(RatioConfig{Ratio: 1})
	for range 1000 {
		r.Done(false, retry.ResultSuccess)
	}
	for b.Loop() {
		r.AllowRetry()
	}
}

// BenchmarkRatioDone is what every attempt costs.
func BenchmarkRatioDone(b *testing.B) {
	r, _ := NewRatio(RatioConfig{})
	for b.Loop() {
		r.Done(false, retry.ResultSuccess)
	}
}

func BenchmarkRatioDoneParallel(b *testing.B) {
	r, _ := NewRatio(RatioConfig{})
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Done(false, retry.ResultSuccess)
		}
	})
}

// BenchmarkTokenBucketAllowRetry is the check before a retry: one atomic load.
func BenchmarkTokenBucketAllowRetry(b *testing.B) {
	t, _ := NewTokenBucket(TokenBucketConfig{})
	for b.Loop() {
		t.AllowRetry()
	}
}

// BenchmarkTokenBucketDone is what every attempt costs: with a full bucket, a success
// writes nothing.
func BenchmarkTokenBucketDone(b *testing.B) {
	t, _ := NewTokenBucket(TokenBucketConfig{})
	for b.Loop() {
		t.Done(false, retry.ResultSuccess)
	}
}

func BenchmarkTokenBucketDoneParallel(b *testing.B) {
	t, _ := NewTokenBucket(TokenBucketConfig{})
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			t.Done(false, retry.ResultSuccess)
		}
	})
}

// BenchmarkGroupBudget is what a request to a known destination pays to find its budget: one
// lock and a map lookup, no allocation.
func BenchmarkGroupBudget(b *testing.B) {
	g, _ := NewGroup(GroupConfig{})
	keys := []string{"https://a.example:443", "https://b.example:443", "http://c.example:80"}
	for _, k := range keys {
		g.Budget(k)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		g.Budget(keys[i%len(keys)])
		i++
	}
}
