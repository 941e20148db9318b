package breaker

import (
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
)

// TestConcurrentUse runs 32 goroutines of 300 calls each on one breaker (run it with -race),
// with sleeps on synctest's clock so that the breaker goes round its states. It checks that
// HALF_OPEN never has more trial calls in flight than HalfOpenCalls and that the reported
// changes add up to the final state.
func TestConcurrentUse(t *testing.T) {
	for _, cfg := range []Config{
		{ConsecutiveFailures: 3, OpenTimeout: 20 * time.Millisecond, HalfOpenCalls: 2},
		{FailureRate: 0.5, MinCalls: 5, Window: 100 * time.Millisecond, OpenTimeout: 20 * time.Millisecond, HalfOpenCalls: 2},
	} {
		synctest.Test(t, func(t *testing.T) {
			var mu sync.Mutex
			counts := map[[2]State]int{}
			cfg.OnStateChange = func(from, to State, _ time.Time) {
				mu.Lock()
				counts[[2]State{from, to}]++
				mu.Unlock()
			}
			b, _ := New(cfg)
			trialsInFlight := map[uint64]int{} // by HALF_OPEN token
			var wg sync.WaitGroup
			for g := range 32 {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(g), 1))
					for range 300 {
						token, ok, _ := b.Allow()
						if !ok {
							time.Sleep(time.Millisecond)
							continue
						}
						halfOpen := State(token&3) == StateHalfOpen
						if halfOpen {
							mu.Lock()
							if trialsInFlight[token]++; trialsInFlight[token] > cfg.HalfOpenCalls {
								t.Errorf("%d trial calls in flight", trialsInFlight[token])
							}
							mu.Unlock()
						}
						if rng.IntN(4) == 0 {
							time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
						}
						if halfOpen {
							mu.Lock()
							trialsInFlight[token]--
							mu.Unlock()
						}
						b.Done(token, retry.Result(rng.IntN(3)))
					}
				})
			}
			wg.Wait()
			opened := counts[[2]State{StateClosed, StateOpen}] + counts[[2]State{StateHalfOpen, StateOpen}]
			probed := counts[[2]State{StateOpen, StateHalfOpen}]
			closed := counts[[2]State{StateHalfOpen, StateClosed}]
			final := b.State()
			if opened < 3 || opened-probed != btoi(final == StateOpen) || probed-opened+counts[[2]State{StateClosed, StateOpen}]-closed != btoi(final == StateHalfOpen) {
				t.Errorf("changes %v do not add up to %v", counts, final)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
