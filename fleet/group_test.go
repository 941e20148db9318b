package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
)

// Each destination of a group has its own fleet state: one host down fleet-wide does not
// refuse calls to another, and one exchange per tick carries every key.
func TestGroupKeepsDestinationsApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		cfg := testConfig
		cfg.Fleet.Store, cfg.Fleet.Name = store, "svc"
		groups := make([]*BreakerGroup, 3)
		for i := range groups {
			c := cfg
			c.Fleet.Replica = string(rune('a' + i))
			g, err := NewBreakerGroup(c)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			groups[i] = g
		}
		for _, g := range groups {
			for range 10 {
				call(g.Breaker("http://down:80"), retry.ResultFailure)
				call(g.Breaker("http://up:80"), retry.ResultSuccess)
			}
		}
		before := store.Exchanges()
		time.Sleep(time.Second)
		for i, g := range groups {
			if got := g.Get("http://down:80").State(); got != breaker.StateOpen {
				t.Errorf("group %d: down is %v, want OPEN", i, got)
			}
			if !call(g.Breaker("http://up:80"), retry.ResultSuccess) {
				t.Errorf("group %d: up refused", i)
			}
		}
		// 3 replicas, 1 s of ticks of 80..120 ms, plus at most one prompt exchange each when
		// the fleet rule opened: never one exchange per call or per key.
		if n := store.Exchanges() - before; n < 3*8 || n > 3*13+3 {
			t.Errorf("%d exchanges in 1 s for 3 replicas", n)
		}
	})
}

// A short-lived process that starts while the fleet is HALF_OPEN reads the view once before
// its first attempt and is elected for the trial call; the next process is refused.
func TestSyncNowElectsAShortLivedProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		x := &Exchange{Group: "svc:breaker", Replica: "old", Window: time.Second, OpenTimeout: 5 * time.Second,
			Keys: []Key{{Name: "", Op: OpOpen}}}
		if err := store.Exchange(t.Context(), x); err != nil || x.Keys[0].State.State != breaker.StateOpen {
			t.Fatalf("open: %v %v", err, x.Keys[0].State)
		}
		time.Sleep(6 * time.Second) // the open timeout ends: HALF_OPEN
		run := func(name string) (admitted bool) {
			cfg := testConfig
			cfg.Fleet.Store, cfg.Fleet.Name, cfg.Fleet.Replica = store, "svc", name
			b, err := NewBreaker(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			if err := b.SyncNow(ctx); err != nil {
				t.Fatal(err)
			}
			token, ok, _ := b.Allow()
			if ok {
				b.Done(token, retry.ResultFailure)
			}
			if err := b.Close(); err != nil { // flushes the trial's failure
				t.Fatal(err)
			}
			return ok
		}
		if !run("cron-1") {
			t.Fatal("first process not elected for the trial")
		}
		if run("cron-2") {
			t.Fatal("second process admitted: the trial failed and the fleet is OPEN again")
		}
		x.Keys[0].Op = OpNone
		if err := store.Exchange(t.Context(), x); err != nil || x.Keys[0].State.State != breaker.StateOpen ||
			x.Keys[0].State.OpenLeft != 5*time.Second {
			t.Errorf("after the failed trial: %v %v %v, want OPEN for 5s", err, x.Keys[0].State, x.Keys[0].State.OpenLeft)
		}
	})
}

// A fresh view's age goes into every decision record.
func TestRecordsCarryFleetAge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := replicas(t, 1, new(MemoryStore), testConfig)[0]
		if err := b.SyncNow(t.Context()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // the next tick is 80 ms or more after SyncNow
		var d retry.Decision
		p := &retry.Policy{MaxAttempts: 1, Breaker: b, OnDecision: func(_ context.Context, x retry.Decision) { d = x }}
		_ = retry.Do(t.Context(), p, func(context.Context) error { return nil })
		age, hasAge := d.Attr("fleet_age_ms")
		if _, stale := d.Attr("fleet_stale"); !hasAge || age.Float64() != 50 || stale {
			t.Errorf("decision fleet age %v (%v) stale %v, want 50 ms, fresh", age, hasAge, stale)
		}
	})
}

// A Name with a brace, which would end the Redis Cluster hash tag of the group's keys early
// or leave it empty (spreading them over slots: CROSSSLOT), is refused by both constructors.
func TestConfigNameWithBraceRefused(t *testing.T) {
	store := new(MemoryStore)
	for _, name := range []string{"}x", "x{", "a{b}c", "{}"} {
		want := fmt.Sprintf("fleet: invalid config: Name %q: must not contain '{' or '}' (they would break the Redis Cluster hash tag that keeps a group's keys in one slot)", name)
		_, err := NewBreakerGroup(BreakerConfig{Fleet: Config{Store: store, Name: name}})
		if !errors.Is(err, ErrInvalidConfig) || err.Error() != want {
			t.Errorf("NewBreakerGroup(Name %q): error %v, want %s", name, err, want)
		}
		_, err = NewBudget(BudgetConfig{Fleet: Config{Store: store, Name: name}})
		if !errors.Is(err, ErrInvalidConfig) || err.Error() != want {
			t.Errorf("NewBudget(Name %q): error %v, want %s", name, err, want)
		}
	}
}

// Bad settings are refused with an error naming the field, never a panic or a default.
func TestConfigErrorsNameTheField(t *testing.T) {
	store := new(MemoryStore)
	for _, tc := range []struct {
		cfg  BreakerConfig
		want string
	}{
		{BreakerConfig{Fleet: Config{Name: "x"}}, "Store is nil"},
		{BreakerConfig{Fleet: Config{Store: store}}, `Name ""`},
		{BreakerConfig{Fleet: Config{Store: store, Name: "x", Interval: time.Millisecond}}, "Interval 1ms"},
		{BreakerConfig{Fleet: Config{Store: store, Name: "x", StaleAfter: time.Millisecond}}, "StaleAfter 1ms"},
		{BreakerConfig{Fleet: Config{Store: store, Name: "x", Timeout: -1}}, "Timeout -1ns"},
		{BreakerConfig{Fleet: Config{Store: store, Name: "x"}, OpenRule: OpenRule{FleetFailureRate: 1.5}}, "OpenRule.FleetFailureRate 1.5"},
		{BreakerConfig{Fleet: Config{Store: store, Name: "x"}, OpenRule: OpenRule{MinFleetCalls: -1}}, "OpenRule.MinFleetCalls -1"},
		{BreakerConfig{Fleet: Config{Store: store, Name: "x"}, OpenRule: OpenRule{FleetWindow: time.Millisecond}}, "OpenRule.FleetWindow 1ms"},
		{BreakerConfig{Fleet: Config{Store: store, Name: "x"}, MaxKeys: -1}, "MaxKeys -1"},
		{BreakerConfig{Fleet: Config{Store: store, Name: "x"}, Breaker: breaker.Config{OpenTimeout: -1}}, "OpenTimeout -1ns"},
	} {
		_, err := NewBreakerGroup(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) ||
			!(errors.Is(err, ErrInvalidConfig) || errors.Is(err, breaker.ErrInvalidConfig)) {
			t.Errorf("%+v: error %v, want one naming %q", tc.cfg, err, tc.want)
		}
	}
	_, err := NewBudget(BudgetConfig{Fleet: Config{Store: store, Name: "x"}, Budget: budget.RatioConfig{Ratio: 2}})
	if !errors.Is(err, budget.ErrInvalidConfig) || !strings.Contains(err.Error(), "Ratio 2") {
		t.Errorf("budget: %v", err)
	}
}

// Close stops the syncer (goleak checks every test) and flushes the counts not yet sent.
func TestCloseFlushes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		b := replicas(t, 1, store, testConfig)[0]
		for range 7 {
			call(b, retry.ResultSuccess)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal("second Close:", err)
		}
		if _, _, stale := b.FleetStatus(time.Now()); !stale {
			t.Error("after Close the view is not stale: decisions must be local")
		}
		x := &Exchange{Group: "svc:breaker", Replica: "reader", Window: testConfig.OpenRule.FleetWindow, Keys: []Key{{}}}
		if err := store.Exchange(t.Context(), x); err != nil || x.Keys[0].Total != [2]int64{7, 0} {
			t.Errorf("fleet totals %v (%v), want 7 calls", x.Keys[0].Total, err)
		}
	})
}
