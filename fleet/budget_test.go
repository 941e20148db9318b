package fleet

import (
	"context"
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
)

// The replicas' grants, each made while the others hold theirs, never add up to more than
// the rule leaves, whatever the traffic's spread and the order of the exchanges: rounded
// down each is its share of what is left exactly, rounded up at most one more, and none is
// negative. With MinReplicas above the replicas there are, the shares leave the rest unused.
func TestGrantsNeverExceedWhatIsLeft(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rule := BudgetRule{
			Ratio:       rapid.Float64Range(0.01, 1).Draw(t, "ratio"),
			Floor:       rapid.SampledFrom([]float64{0, 0.5, 10, 600}).Draw(t, "floor"),
			MinReplicas: rapid.IntRange(0, 60).Draw(t, "min replicas"),
		}
		own := rapid.SliceOfN(rapid.Int64Range(0, 10_000), 1, 50).Draw(t, "own requests")
		var requests int64
		for _, r := range own {
			requests += r
		}
		retries := rapid.Int64Range(0, requests+100).Draw(t, "fleet retries")
		left := rule.Ratio*float64(requests) + rule.Floor - float64(retries)
		for _, u := range []float64{0.999999999, 0, 0.5} {
			var granted int64
			for _, r := range own {
				g := Grant(rule, requests, retries, granted, r, len(own), u)
				share := left * Share(requests, r, len(own), rule.MinReplicas)
				if g < 0 || (left > 0 && float64(g) > math.Floor(share)+1) {
					t.Fatalf("u %v: grant %d, share of what is left %v", u, g, share)
				}
				if u > 0.99 && left > 0 && share-math.Floor(share) <= u && g != int64(math.Floor(share)) { // a share's fraction above u rounds up
					t.Fatalf("rounded down: grant %d, want the share %v rounded down", g, share)
				}
				granted += g
			}
			if left <= 0 && granted != 0 {
				t.Fatalf("nothing left (%v) but grants add up to %d", left, granted)
			}
			if left > 0 && float64(granted) > left+1e-6 {
				t.Fatalf("u %v: left %v, grants add up to %d", u, left, granted)
			}
		}
	})
}

// Ten replicas whose every call fails and wants a retry: the fleet's retries stay within
// ratio × fleet requests + floor over any window, plus one interval's worth (issue 10,
// test 5, on the in-memory store); each replica's local budget alone would allow ten floors.
func TestFleetRetriesWithinRatio(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		cfg := BudgetConfig{Fleet: Config{Store: store, Name: "svc", Interval: 100 * time.Millisecond},
			Budget: budget.RatioConfig{Ratio: 0.1, MinRetriesPerSecond: 1, Window: 2 * time.Second}}
		bs := make([]*Budget, 10)
		for i := range bs {
			c := cfg
			c.Fleet.Replica = fmt.Sprint("r", i)
			b, err := NewBudget(c)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			bs[i] = b
		}
		time.Sleep(time.Second)
		type second struct{ requests, retries int64 }
		var log []second
		for range 20 { // 20 s, each replica: 10 requests a second, every one wanting a retry
			var s second
			for range 10 {
				for _, b := range bs {
					b.Done(false, retry.ResultFailure)
					s.requests++
					if b.AllowRetry() {
						b.Done(true, retry.ResultFailure)
						s.requests++
						s.retries++
					}
				}
				time.Sleep(100 * time.Millisecond)
			}
			log = append(log, s)
		}
		// Over every 2 s window: retries ≤ 0.1 × requests + 2 (the floor) + one interval's
		// worth of slack (10 replicas may each spend a share computed from an older view).
		for i := 1; i < len(log); i++ {
			requests, retries := log[i-1].requests+log[i].requests, log[i-1].retries+log[i].retries
			if limit := 0.1*float64(requests) + 2 + 10; float64(retries) > limit {
				t.Errorf("seconds %d-%d: %d retries for %d requests, above %v", i-1, i, retries, requests, limit)
			}
		}
		var requests, retries int64
		for _, s := range log {
			requests, retries = requests+s.requests, retries+s.retries
		}
		// And the fleet does use its budget: about 10% of first attempts.
		if ratio := float64(retries) / float64(requests-retries); math.Abs(ratio-0.1) > 0.03 {
			t.Errorf("retries %d for %d requests: %.3f of first attempts, want about 0.1", retries, requests, ratio)
		}
	})
}

// A transport's re-sends are retries already spent (issue 15 item 3): they shrink this
// replica's share at once, and reach the fleet's counts at the next exchange.
func TestBudgetCountsResends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		b, err := NewBudget(BudgetConfig{Fleet: Config{Store: store, Name: "svc", Replica: "r0", Interval: 100 * time.Millisecond},
			Budget: budget.RatioConfig{Ratio: 0.1, MinRetriesPerSecond: 5, Window: 2 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		var _ retry.ResendCounter = b
		time.Sleep(150 * time.Millisecond) // one exchange: the floor's 10 retries are this replica's
		if got := b.Tokens(); got != 10 {
			t.Fatalf("share %d before re-sends, want 10", got)
		}
		b.Done(false, retry.ResultFailure)
		b.Resent(3)
		b.Resent(0)
		if got := b.Tokens(); got != 7 {
			t.Errorf("share %d after 3 re-sends, want 7", got)
		}
		time.Sleep(100 * time.Millisecond) // the next exchange reports 4 requests, 3 retries
		// ratio 0.1 × 4 + floor 10 − 3 retries = 7.4 left for the one replica.
		if got := b.Tokens(); got != 7 && got != 8 {
			t.Errorf("share %d after the exchange, want 7 or 8 (7.4 rounded at random)", got)
		}
	})
}

// A fleet budget's share in use goes into every decision record as fleet_share, to three
// significant digits (issue 24 item 4): 1/MinReplicas before any view, then the share of the
// last view, kept while the view is stale.
func TestRecordsCarryFleetShare(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &switchStore{Store: new(MemoryStore)}
		b, err := NewBudget(BudgetConfig{Fleet: Config{Store: store, Name: "svc", Interval: time.Hour}, MinReplicas: 3})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		share := func() (float64, bool) {
			var d retry.Decision
			p := &retry.Policy{MaxAttempts: 1, Budget: b, OnDecision: func(_ context.Context, x retry.Decision) { d = x }}
			_ = retry.Do(t.Context(), p, func(context.Context) error { return nil })
			v, ok := d.Attr("fleet_share")
			return v.Float64(), ok
		}
		if s, ok := share(); !ok || s != 0.333 {
			t.Errorf("fleet_share %v (%v) before any view, want 0.333 (1/MinReplicas)", s, ok)
		}
		for range 59 {
			b.Done(false, retry.ResultSuccess)
		}
		if err := b.SyncNow(t.Context()); err != nil {
			t.Fatal(err)
		}
		// 60 requests of its own (59 and the record's), of 60 in the fleet, 3 replicas at least:
		// 61/63.
		if s, ok := share(); !ok || s != 0.968 || b.Share() != 61.0/63 {
			t.Errorf("fleet_share %v (%v), Share %v; want 0.968 (61/63)", s, ok, b.Share())
		}
		store.set(true, false)
		time.Sleep(4 * time.Hour) // stale, the store down
		if s, ok := share(); !ok || s != 0.968 {
			t.Errorf("fleet_share %v (%v) with the view stale, want the last view's 0.968", s, ok)
		}
	})
}
