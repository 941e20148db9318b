package fleet

import (
	"testing"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
)

// When the fleet closes (a CLOSED view after OPEN, or this replica's trial call succeeding)
// the local breaker starts afresh, and the late result of a call it admitted before (token 0
// at generation 0, CLOSED, as a fresh breaker's first calls have) is ignored, not counted
// against the fresh start: with ConsecutiveFailures 1 it would open it.
func TestLateResultAfterFleetClosesIgnored(t *testing.T) {
	for _, tc := range []struct {
		name  string
		close func(b *Breaker)
	}{
		{"closed view", func(b *Breaker) {
			b.mode.Store(modeOpen)
			b.apply(&Key{State: KeyState{State: breaker.StateClosed}}, 0, 0)
		}},
		{"trial success", func(b *Breaker) {
			b.mode.Store(modeTrialRunning)
			b.Done(trialToken(b.trialSeq.Load()), retry.ResultSuccess)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := NewBreakerGroup(BreakerConfig{Fleet: Config{Store: new(MemoryStore), Name: "late"},
				Breaker: breaker.Config{ConsecutiveFailures: 1}})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			b := g.Get("k")
			late, ok, _ := b.Allow()
			if !ok || late != 0 {
				t.Fatalf("Allow = %d, %v; want token 0 admitted", late, ok)
			}
			tc.close(b)
			if m := b.mode.Load(); m != modeClosed {
				t.Fatalf("mode %d after the fleet closed, want modeClosed", m)
			}
			b.Done(late, retry.ResultFailure)
			if s := b.local.State(); s != breaker.StateClosed {
				t.Errorf("local breaker %v after a late failure, want CLOSED (the result ignored)", s)
			}
			token, ok, _ := b.Allow()
			b.Done(token, retry.ResultFailure)
			if s := b.local.State(); !ok || s != breaker.StateOpen {
				t.Errorf("local breaker %v after a new call's failure (admitted %v), want OPEN", s, ok)
			}
		})
	}
}
