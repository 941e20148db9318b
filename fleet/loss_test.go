package fleet

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
)

// A store that forgets everything (a Redis FLUSHALL) while the fleet is OPEN: every replica
// keeps refusing until the open timeout it knows, publishes OPEN again at its next exchange,
// and no replica takes CLOSED from the empty store (issue 24 item 3).
func TestForgetfulStoreKeepsTheFleetOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		cfg := testConfig
		cfg.Breaker.ConsecutiveFailures = 1000
		bs := replicas(t, 3, store, cfg)
		time.Sleep(time.Second)
		openTimeout := cfg.Breaker.OpenTimeout
		if err := store.Exchange(t.Context(), &Exchange{Group: "svc:breaker", Replica: "other", Window: cfg.OpenRule.FleetWindow,
			OpenTimeout: openTimeout, Keys: []Key{{Op: OpOpen}}}); err != nil {
			t.Fatal(err)
		}
		opened := time.Now()
		time.Sleep(time.Second)
		store.Forget()
		reached := 0
		for time.Since(opened) < openTimeout-200*time.Millisecond {
			for _, b := range bs {
				if call(b, retry.ResultFailure) {
					reached++
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		if reached != 0 {
			t.Errorf("%d calls admitted after the store forgot the fleet OPEN, want 0", reached)
		}
		x := &Exchange{Group: "svc:breaker", Replica: "reader", Window: cfg.OpenRule.FleetWindow, OpenTimeout: openTimeout, Keys: []Key{{}}}
		if err := store.Exchange(t.Context(), x); err != nil {
			t.Fatal(err)
		}
		if s := x.Keys[0].State; s.State != breaker.StateOpen || s.OpenLeft > 200*time.Millisecond+120*time.Millisecond {
			t.Errorf("the store holds %+v, want OPEN again until the open timeout's end", s)
		}
	})
}

// appliedButLost is a store whose next exchange is applied but fails, as when Redis runs the
// script and the reply comes after the timeout.
type appliedButLost struct {
	*MemoryStore
	lose bool
}

func (s *appliedButLost) Exchange(ctx context.Context, x *Exchange) error {
	err := s.MemoryStore.Exchange(ctx, x)
	if s.lose {
		s.lose = false
		return errors.New("reply lost")
	}
	return err
}

// An exchange whose reply was lost is sent again and counted once (issue 24 item 1), for a
// breaker's calls and a budget's requests and retries.
func TestLostReplyCountsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		memory := new(MemoryStore)
		store := &appliedButLost{MemoryStore: memory}
		cfg := testConfig
		cfg.Fleet.Interval = time.Hour
		cfg.Breaker.ConsecutiveFailures = 1000
		cfg.OpenRule.MinFleetCalls = 1 << 30
		b := replicas(t, 1, store, cfg)[0]
		bud, err := NewBudget(BudgetConfig{Fleet: Config{Store: store, Name: "svc", Interval: time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		defer bud.Close()
		for range 100 {
			call(b, retry.ResultFailure)
			bud.Done(false, retry.ResultFailure)
		}
		for _, sync := range []func(context.Context) error{b.SyncNow, bud.SyncNow} {
			store.lose = true
			if err := sync(t.Context()); err == nil {
				t.Fatal("the exchange succeeded; the test needs its reply lost")
			}
			if err := sync(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		for group, want := range map[string][2]int64{"svc:breaker": {100, 100}, "svc:budget": {100, 0}} {
			x := &Exchange{Group: group, Replica: "reader", Window: 10 * time.Second, Keys: []Key{{}}}
			if group == "svc:budget" {
				x.Budget = &BudgetRule{Ratio: budget.DefaultRatio}
			}
			if err := memory.Exchange(t.Context(), x); err != nil || x.Keys[0].Total != want {
				t.Errorf("%s: the fleet counts %v (%v), want %v", group, x.Keys[0].Total, err, want)
			}
		}
	})
}

// An elected replica that makes no trial call within the open timeout gives its election
// back at its next exchange: another replica is elected then, not a trial timeout later.
func TestUnusedElectionReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		cfg := testConfig
		cfg.Breaker.TrialTimeout = time.Hour
		a, b := newReplicaWith(t, "a", store, cfg), newReplicaWith(t, "b", store, cfg)
		if err := store.Exchange(t.Context(), &Exchange{Group: "svc:breaker", Replica: "other", Window: cfg.OpenRule.FleetWindow,
			OpenTimeout: cfg.Breaker.OpenTimeout, Keys: []Key{{Op: OpOpen}}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(cfg.Breaker.OpenTimeout + time.Second)
		for deadline := time.Now().Add(time.Second); a.mode.Load() != modeTrial; { // a asks, once refused, and wins; it never calls
			if time.Now().After(deadline) {
				t.Fatal("a not elected within a second of the open timeout's end")
			}
			if token, ok, _ := a.Allow(); ok {
				a.Done(token, retry.ResultIgnored)
			}
			time.Sleep(10 * time.Millisecond)
		}
		elected := time.Now()
		for {
			if token, ok, _ := b.Allow(); ok {
				b.Done(token, retry.ResultSuccess)
				break
			}
			if time.Since(elected) > 2*cfg.Breaker.OpenTimeout {
				t.Fatal("b not elected within two open timeouts of a's unused election")
			}
			time.Sleep(10 * time.Millisecond)
		}
		if waited := time.Since(elected); waited > cfg.Breaker.OpenTimeout+3*120*time.Millisecond {
			t.Errorf("b elected %v after a's election, want within the open timeout (%v) and a few intervals", waited, cfg.Breaker.OpenTimeout)
		}
	})
}

// While the store is down each budget keeps to its share of the fleet's rule: ten replicas'
// retries stay within the rule's, not ten floors (issue 24 item 4).
func TestStaleBudgetsKeepToTheirShare(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &switchStore{Store: new(MemoryStore)}
		rule := budget.RatioConfig{Ratio: 0.2, MinRetriesPerSecond: 10, Window: 3 * time.Second}
		bs := make([]*Budget, 10)
		for i := range bs {
			b, err := NewBudget(BudgetConfig{Fleet: Config{Store: store, Name: "svc", Replica: string(rune('a' + i)),
				Interval: 100 * time.Millisecond}, Budget: rule})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			bs[i] = b
		}
		time.Sleep(time.Second)
		store.set(true, false)
		time.Sleep(time.Second) // stale
		var requests, retries int
		for range 20 { // 2.5 s, within one window
			for _, b := range bs {
				b.Done(false, retry.ResultFailure)
				requests++
				if b.AllowRetry() {
					b.Done(true, retry.ResultFailure)
					requests++
					retries++
				}
			}
			time.Sleep(125 * time.Millisecond)
		}
		if due := 0.2*float64(requests) + 30; float64(retries) > due {
			t.Errorf("%d retries for %d requests with the store down, above the rule's %.0f", retries, requests, due)
		}
		if s := bs[0].Share(); s != 0.1 {
			t.Errorf("share in use %v, want 0.1 (one of ten replicas, no requests yet)", s)
		}
	})
}
