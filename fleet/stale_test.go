package fleet

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
)

// With the store down, then frozen, calls go on with local decisions, the view says stale
// (once, through OnStale, in FleetStatus and in Stats), and everything comes back by itself
// when the store does (issue 10, test 2, on the in-memory store).
// hasAttr reports whether d's record has a field named key.
func hasAttr(d retry.Decision, key string) bool {
	_, ok := d.Attr(key)
	return ok
}

func TestStoreDownOrFrozenFailsOpenToLocal(t *testing.T) {
	for _, frozen := range []bool{false, true} {
		name := map[bool]string{false: "down", true: "frozen"}[frozen]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := &switchStore{Store: new(MemoryStore)}
				var (
					mu      sync.Mutex
					changes []bool
				)
				cfg := testConfig
				cfg.Fleet.OnStale = func(stale bool, err error) {
					mu.Lock()
					defer mu.Unlock()
					changes = append(changes, stale)
					if stale && err == nil {
						t.Error("OnStale(true) without the store's error")
					}
				}
				bs := replicas(t, 1, store, cfg)
				b := bs[0]
				time.Sleep(time.Second)
				if age, ok, stale := b.FleetStatus(time.Now()); !ok || stale || age > 120*time.Millisecond {
					t.Fatalf("fresh view: age %v ok %v stale %v", age, ok, stale)
				}
				store.set(!frozen, frozen)
				time.Sleep(time.Second) // StaleAfter is 3 intervals: 300 ms
				if age, ok, stale := b.FleetStatus(time.Now()); !ok || !stale || age < 300*time.Millisecond {
					t.Fatalf("store %s: age %v ok %v stale %v, want stale", name, age, ok, stale)
				}
				start := time.Now()
				for i := range 3 {
					if !call(b, retry.ResultFailure) {
						t.Fatalf("local breaker refused call %d", i+1)
					}
				}
				if time.Since(start) != 0 {
					t.Errorf("calls took %v of the bubble's time with the store %s", time.Since(start), name)
				}
				if b.State() != breaker.StateOpen || call(b, retry.ResultSuccess) {
					t.Errorf("local breaker %v after 3 failures, want OPEN and refusing", b.State())
				}
				if s := b.Stats(); !s.Stale || s.Failures == 0 || s.LastError == nil {
					t.Errorf("stats %+v, want stale with failures and an error", s)
				}
				store.set(false, false)
				time.Sleep(300 * time.Millisecond)
				if age, ok, stale := b.FleetStatus(time.Now()); !ok || stale || age > 120*time.Millisecond {
					t.Errorf("after recovery: age %v ok %v stale %v", age, ok, stale)
				}
				mu.Lock()
				defer mu.Unlock()
				if len(changes) != 2 || !changes[0] || changes[1] {
					t.Errorf("OnStale calls %v, want [true false]", changes)
				}
			})
		})
	}
}

// A store that cannot be reached from the start: decisions are local only from the first
// call, records say stale, and OnStale says so once.
func TestStoreUnreachableFromStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &switchStore{Store: new(MemoryStore), down: true}
		var said atomic.Int32
		cfg := testConfig
		cfg.Fleet.Store, cfg.Fleet.Name = store, "svc"
		cfg.Fleet.OnStale = func(bool, error) { said.Add(1) }
		b, err := NewBreaker(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		if err := b.SyncNow(ctx); !errors.Is(err, errDown) {
			t.Fatalf("SyncNow: %v", err)
		}
		var records []retry.Decision
		p := &retry.Policy{MaxAttempts: 1, Breaker: b, OnDecision: func(_ context.Context, d retry.Decision) { records = append(records, d) }}
		if err := retry.Do(t.Context(), p, func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if len(records) != 1 || !hasAttr(records[0], "fleet_stale") || hasAttr(records[0], "fleet_age_ms") {
			t.Errorf("records %+v, want one saying fleet_stale and no age", records)
		}
		time.Sleep(time.Second)
		if n := said.Load(); n != 1 {
			t.Errorf("OnStale called %d times, want once", n)
		}
	})
}

// OnStale runs with no lock held, so it may call SyncNow: here the store comes back and
// OnStale(true) syncs at once, whose OnStale(false) follows right after, in order. A
// deadlock would fail the test at its timeout (real time: a goroutine blocked on a mutex
// never lets a synctest bubble's clock advance).
func TestOnStaleMayCallSyncNow(t *testing.T) {
	store := &switchStore{Store: new(MemoryStore), down: true}
	cfg := testConfig
	cfg.Fleet.Store, cfg.Fleet.Name, cfg.Fleet.Interval = store, "svc", time.Hour // no tick
	var (
		b       *Breaker
		changes []bool
		inner   = errors.New("OnStale(true) did not call SyncNow")
	)
	cfg.Fleet.OnStale = func(stale bool, err error) {
		changes = append(changes, stale) // one call at a time: no lock needed
		if stale {
			store.set(false, false)
			inner = b.SyncNow(context.Background())
		}
	}
	b, err := NewBreaker(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- b.SyncNow(context.Background()) }()
	select {
	case err := <-done:
		if !errors.Is(err, errDown) {
			t.Errorf("SyncNow: %v, want %v", err, errDown)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SyncNow from OnStale deadlocked") // and Close would too: not called
	}
	defer b.Close()
	if inner != nil || len(changes) != 2 || !changes[0] || changes[1] {
		t.Errorf("OnStale calls %v, SyncNow inside it %v; want [true false] and nil", changes, inner)
	}
	if s := b.Stats(); s.Stale || s.Exchanges != 1 || s.Failures != 1 {
		t.Errorf("stats %+v, want fresh after 1 exchange and 1 failure", s)
	}
}
