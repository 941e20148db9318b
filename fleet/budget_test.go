package fleet

import (
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
)

// The shares of the fleet add up to what the rule leaves, whatever the traffic's spread:
// rounded down they never exceed it, rounded up they reach it, and none is negative.
func TestShareAddsUpToWhatIsLeft(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := budget.RatioConfig{
			Ratio:               rapid.Float64Range(0.01, 1).Draw(t, "ratio"),
			MinRetriesPerSecond: rapid.SampledFrom([]float64{retry.None, 0, 0.5, 10}).Draw(t, "floor"),
			Window:              time.Duration(rapid.IntRange(1, 60).Draw(t, "window s")) * time.Second,
		}
		own := rapid.SliceOfN(rapid.Int64Range(0, 10_000), 1, 50).Draw(t, "own requests")
		var requests int64
		for _, r := range own {
			requests += r
		}
		retries := rapid.Int64Range(0, requests+100).Draw(t, "fleet retries")
		left := cfg.Ratio*float64(requests) - float64(retries)
		switch cfg.MinRetriesPerSecond {
		case 0:
			left += budget.DefaultMinRetriesPerSecond * cfg.Window.Seconds()
		case retry.None:
		default:
			left += cfg.MinRetriesPerSecond * cfg.Window.Seconds()
		}
		var down, up int64
		for _, r := range own {
			d := Share(cfg, requests, retries, r, len(own), 0.999999999)
			u := Share(cfg, requests, retries, r, len(own), 0)
			if d < 0 || u < d || u > d+1 {
				t.Fatalf("share %d rounded down, %d up", d, u)
			}
			down += d
			up += u
		}
		if left <= 0 && up != 0 {
			t.Fatalf("nothing left (%v) but shares add up to %d", left, up)
		}
		if left > 0 && (float64(down) > left+1e-6 || float64(up) < left-1e-6) {
			t.Fatalf("left %v; shares add up to %d rounded down, %d rounded up", left, down, up)
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
