package fleet

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/ratelimit"
)

var rateTestConfig = RateGateConfig{Fleet: Config{Interval: 100 * time.Millisecond}}

// rateReplica returns a fleet rate gate of key "" on store named replica, with cfg, closed
// at the end of the test.
func rateReplica(t *testing.T, replica string, store Store, cfg RateGateConfig) *RateGate {
	t.Helper()
	cfg.Fleet.Store, cfg.Fleet.Name, cfg.Fleet.Replica = store, "api-key", replica
	r, err := NewRateGate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// requestsLeft is a reading of a request quota of limit, remaining left until reset.
func requestsLeft(limit, remaining int64, reset time.Duration) []ratelimit.Reading {
	return []ratelimit.Reading{{Quota: "requests", Limit: limit, Remaining: remaining, Reset: reset, From: "x-ratelimit-remaining-requests"}}
}

// admittedNow reserves n attempts at now and returns how many the gate admits at now, and
// the time of the first it puts later (the zero Time when none).
func admittedNow(g retry.RateGate, now time.Time, n int) (int, time.Time) {
	var at, first time.Time
	admitted := 0
	for range n {
		at, _ = g.Reserve(now, now)
		if at.Equal(now) {
			admitted++
		} else if first.IsZero() {
			first = at
		}
	}
	return admitted, first
}

// Issue 33: what one replica reads reaches the others at the next ticks, and each keeps to
// its part of what is left: two replicas with no demand yet split the 4 requests left
// between them, 2 each, where each alone would take 4; after the reset each keeps half of
// each window's limit (5 of 10 requests per 10 s, released over the window's first tenth).
func TestRateGateSharesWhatIsLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		a, b := rateReplica(t, "a", store, rateTestConfig), rateReplica(t, "b", store, rateTestConfig)
		start := time.Now()
		a.Observe(start, requestsLeft(10, 4, 10*time.Second))
		time.Sleep(time.Second) // ticks: the store's view and parts settle
		now := time.Now()
		if pa, pb := a.Part(), b.Part(); pa != (ratelimit.Part{From: 0, To: 0.5}) || pb != (ratelimit.Part{From: 0.5, To: 1}) {
			t.Fatalf("parts %+v and %+v, want [0, 1/2) and [1/2, 1)", pa, pb)
		}
		for _, r := range []*RateGate{a, b} {
			n, next := admittedNow(r, now, 4)
			if n != 2 || next.Sub(start) < 10*time.Second {
				t.Errorf("admitted %d of 4 at once, the next at %v; want 2, the next from the reset at 10s", n, next.Sub(start))
			}
		}
		_, fifth := admittedNow(a, now, 1) // the third and fourth at 10 s and 10.2 s
		if want := start.Add(10400 * time.Millisecond); !fifth.Equal(want) {
			t.Errorf("a's fifth at %v, want 10.4s: half of each window's 10, over its first tenth", fifth.Sub(start))
		}
	})
}

// Issue 33: a throttle seen by one replica holds the others until the server's wait, from
// their next tick.
func TestRateGateSharesAHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		a, b := rateReplica(t, "a", store, rateTestConfig), rateReplica(t, "b", store, rateTestConfig)
		now := time.Now()
		a.Observe(now, requestsLeft(10, 0, 10*time.Second))
		_, tok := a.Reserve(now, now)
		a.Done(tok, now, retry.ResultThrottled, 3*time.Second)
		holdEnd := now.Add(3 * time.Second)
		time.Sleep(250 * time.Millisecond)
		if at, _ := b.Reserve(time.Now(), time.Now()); at.Before(holdEnd) {
			t.Errorf("b reserved at %v, within a's hold until %v", at.Sub(now), holdEnd.Sub(now))
		}
	})
}

// Issue 33: a replica's part follows its demand, and a replica that closes leaves its part to
// the others from their next tick.
func TestRateGateDemandAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		a, b := rateReplica(t, "a", store, rateTestConfig), rateReplica(t, "b", store, rateTestConfig)
		for range 30 {
			a.Reserve(time.Now(), time.Now()) // free: no limit known, yet demand
		}
		time.Sleep(500 * time.Millisecond)
		if p := a.Part(); p != (ratelimit.Part{From: 0, To: 31.0 / 32}) {
			t.Errorf("a, 30 attempts beside none: part %+v, want [0, 31/32)", p)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		if p := b.Part(); p != (ratelimit.Part{From: 0, To: 1}) {
			t.Errorf("b, after a closed: part %+v, want the whole quota", p)
		}
	})
}

// Issue 33: with the store down or frozen, every call goes on without waiting, each replica
// keeping its last part with what it reads; once the store is back, the view is fresh at the
// next tick. After the store lost its data (a flush), the views come back with the next
// exchanges, a replica that joins then learns the quota within two ticks, and the parts from
// the young store are no larger than those in use.
func TestRateGateStoreFaults(t *testing.T) {
	for _, fault := range []string{"down", "frozen", "flushed"} {
		t.Run(fault, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := new(MemoryStore)
				store := &switchStore{Store: mem}
				a, b := rateReplica(t, "a", store, rateTestConfig), rateReplica(t, "b", store, rateTestConfig)
				a.Observe(time.Now(), requestsLeft(100, 100, time.Minute))
				time.Sleep(time.Second)
				half := ratelimit.Part{From: 0, To: 0.5}
				if p := a.Part(); p != half {
					t.Fatalf("a's part %+v, want [0, 1/2)", p)
				}
				switch fault {
				case "down":
					store.set(true, false)
				case "frozen":
					store.set(false, true)
				case "flushed":
					mem.Forget()
				}
				time.Sleep(time.Second)
				start := time.Now()
				n, _ := admittedNow(a, start, 60)
				if time.Since(start) != 0 || n != 50 {
					t.Errorf("store %s: admitted %d of 60 at once in %v; want half of the 100 left, without waiting", fault, n, time.Since(start))
				}
				if _, _, stale := a.FleetStatus(time.Now()); stale != (fault != "flushed") {
					t.Errorf("store %s: stale %v", fault, stale)
				}
				if fault == "flushed" {
					if p := a.Part(); p.To-p.From > 0.5 {
						t.Errorf("after the flush: a's part %+v, larger than its half", p)
					}
				}
				store.set(false, false)
				c := rateReplica(t, "c", store, rateTestConfig)
				time.Sleep(250 * time.Millisecond) // two ticks
				if _, _, stale := b.FleetStatus(time.Now()); stale {
					t.Errorf("store %s, back: b's view is still stale two ticks later", fault)
				}
				if views, _, _ := c.local.Snapshot(time.Now(), nil); len(views) != 1 || views[0].Limit != 100 {
					t.Errorf("store %s, back: c joined and knows %+v two ticks later, want the quota of 100", fault, views)
				}
			})
		})
	}
}

// Issue 33: the store is met once per tick whatever the number of calls.
func TestRateGateExchangesPerTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		gates := []*RateGate{rateReplica(t, "a", store, rateTestConfig), rateReplica(t, "b", store, rateTestConfig)}
		for range 100 {
			for _, g := range gates {
				g.Observe(time.Now(), requestsLeft(1_000_000, 999_000, time.Minute))
				for range 100 {
					_, tok := g.Reserve(time.Now(), time.Now())
					g.Done(tok, time.Now(), retry.ResultSuccess, 0)
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		// 20,000 calls in 1 s; ticks every 80 to 120 ms.
		if n := store.Exchanges(); n < 2*8 || n > 2*13 {
			t.Errorf("%d exchanges for 20,000 calls by 2 replicas in 1 s, want about 2 × 10", n)
		}
	})
}

// Bad settings are refused with an error naming the field.
func TestRateGateConfigErrors(t *testing.T) {
	store := new(MemoryStore)
	for _, tc := range []struct {
		cfg  RateGateConfig
		want string
	}{
		{RateGateConfig{Fleet: Config{Store: store, Name: "k"}, MinReplicas: -1}, "MinReplicas -1 out of range"},
		{RateGateConfig{Fleet: Config{Store: store, Name: "k"}, DemandWindow: time.Millisecond}, "DemandWindow 1ms out of range: must be at least the Interval 500ms"},
		{RateGateConfig{Fleet: Config{Store: store, Name: "k"}, MaxKeys: -1}, "MaxKeys -1 out of range"},
		{RateGateConfig{Fleet: Config{Store: store, Name: "k"}, Gate: ratelimit.Config{ProbeWait: time.Hour}}, "ProbeWait 1h0m0s out of range"},
		{RateGateConfig{Fleet: Config{Name: "k"}}, "Store is nil"},
	} {
		_, err := NewRateGateGroup(tc.cfg)
		if err == nil || !errors.Is(err, ErrInvalidConfig) && !errors.Is(err, ratelimit.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewRateGateGroup(%+v): %v, want an invalid config error saying %q", tc.cfg, err, tc.want)
		}
	}
}

// A group made only when configured may be used as it is: a nil group gives no gate.
func TestNilRateGateGroup(t *testing.T) {
	var g *RateGateGroup
	if g.RateGate("https://api.example.com:443") != nil {
		t.Error("a nil group gave a gate")
	}
	group, err := NewRateGateGroup(RateGateConfig{Fleet: Config{Store: new(MemoryStore), Name: "k"}})
	if err != nil {
		t.Fatal(err)
	}
	defer group.Close()
	if a := group.Gate("a"); group.Gate("b") == a || group.Gate("a") != a {
		t.Error("want one gate per key")
	}
	if err := group.Close(); err != nil || group.SyncNow(context.Background()) != ErrClosed {
		t.Errorf("close: %v; SyncNow after close: want ErrClosed", err)
	}
}
