package ratelimit

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrykit/retry"
)

// Run with -race: 32 goroutines of 500 calls each (reserve, then cancel or answer, with or
// without readings of the token quota, some throttled) on one gate, each on its own
// advancing virtual clock. Every time is at or after its notBefore, and the reservations
// before the request quota's reset fit in what it left.
func TestGateConcurrentUse(t *testing.T) {
	g := mustGate(t, Config{ProbeWait: 5 * time.Millisecond})
	g.Observe(ms(0), []Reading{requests(1000, 300, 10*time.Second), {Quota: "tokens", Limit: 1 << 20, Remaining: 1 << 20, Reset: time.Second}})
	var early atomic.Int64 // reservations before the reset, never cancelled
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			now := ms(int64(w))
			for range 500 {
				now = now.Add(time.Duration(rng.IntN(3)) * time.Millisecond)
				nb := now.Add(time.Duration(rng.IntN(20)) * time.Millisecond)
				at, tok := g.ReserveN(now, nb, int64(rng.IntN(3)))
				if at.Before(nb) {
					t.Errorf("Reserve(notBefore %v) = %v", nb.Sub(t0), at.Sub(t0))
					return
				}
				switch rng.IntN(4) {
				case 0:
					g.Cancel(tok, now)
					continue
				case 1:
					g.Observe(now, []Reading{{Quota: "tokens", Limit: 1 << 20, Remaining: int64(rng.IntN(1 << 20)), Reset: time.Second}})
				}
				if tok != 0 && at.Before(ms(10000)) {
					early.Add(1)
				}
				r := retry.ResultSuccess
				if rng.IntN(50) == 0 {
					r = retry.ResultThrottled
				}
				g.Done(tok, now, r, 0)
			}
		})
	}
	wg.Wait()
	if n := early.Load(); n > 300 {
		t.Errorf("%d reservations before the reset, more than the 300 left", n)
	}
}
