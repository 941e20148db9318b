package budget

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/retrykit/retry"
)

// hammer runs 32 goroutines of 500 calls each on b (run it with -race) and returns the
// requests reported and the retries allowed.
func hammer(b retry.RetryBudget) (requests, retries int64) {
	var req, ret atomic.Int64
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 2))
			for range 500 {
				b.Done(rng.IntN(2) == 0, retry.Result(rng.IntN(3)))
				req.Add(1)
				if b.AllowRetry() {
					ret.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return req.Load(), ret.Load()
}

// Within one window (synctest's clock stands still), the retries allowed under concurrent
// use never exceed the ratio of the requests plus the floor, and reach it.
func TestRatioConcurrentUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := NewRatio(RatioConfig{}) // 10% plus 10 a window
		requests, retries := hammer(b)
		if limit := requests/10 + 10; retries != limit {
			t.Errorf("%d retries allowed for %d requests, want %d", retries, requests, limit)
		}
	})
}

func TestTokenBucketConcurrentUse(t *testing.T) {
	b, _ := NewTokenBucket(TokenBucketConfig{MaxTokens: 100, TokenRatio: 0.5})
	hammer(b)
	if tok := b.Tokens(); tok < 0 || tok > 100 {
		t.Errorf("%v tokens, want within [0, 100]", tok)
	}
}
