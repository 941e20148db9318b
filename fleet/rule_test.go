package fleet

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/retrykit/retry/breaker"
)

// The fleet rule opens a CLOSED key exactly when the window holds at least MinFleetCalls
// calls of which at least FleetFailureRate failed, and then asks the store to open it for all.
func TestFleetRuleOpensExactlyAtThreshold(t *testing.T) {
	g, err := NewBreakerGroup(BreakerConfig{Fleet: Config{Store: new(MemoryStore), Name: "rule"}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	rapid.Check(t, func(t *rapid.T) {
		minCalls := rapid.IntRange(1, 1000).Draw(t, "min calls")
		rate := rapid.Float64Range(0.01, 1).Draw(t, "failure rate")
		calls := rapid.Int64Range(0, 2000).Draw(t, "calls")
		failures := rapid.Int64Range(0, calls).Draw(t, "failures")
		g.cfg.OpenRule = OpenRule{MinFleetCalls: minCalls, FleetFailureRate: rate}
		b := g.newBreaker("k")
		b.apply(&Key{State: KeyState{State: breaker.StateClosed}, Total: [2]int64{calls, failures}}, 0, 0)
		want := calls >= int64(minCalls) && float64(failures) >= rate*float64(calls)
		if opened := b.mode.Load() == modeOpen; opened != want {
			t.Fatalf("%d failures of %d calls (min %d, rate %v): opened %v, want %v", failures, calls, minCalls, rate, opened, want)
		}
		if op, _ := unpack(b.pending.Load()); want && op != OpOpen {
			t.Fatalf("opened without asking the store to open: op %v", op)
		}
	})
}
