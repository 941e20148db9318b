package fleet

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry/breaker"
)

// After Close, SyncNow makes no exchange and the view stays stale: an exchange then would
// make the view fresh again with no syncer left to keep it so, and a fleet OPEN learned
// then would refuse every call for good. Close's own flush still reaches the store.
func TestSyncNowAfterCloseStaysLocal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		b := newReplica(t, "r", store, 0, 0)
		bud, err := NewBudget(BudgetConfig{Fleet: Config{Store: store, Name: "svc", Interval: 100 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		// The fleet opens after this replica's last exchange.
		if err := store.Exchange(t.Context(), &Exchange{Group: "svc:breaker", Replica: "other", Window: testConfig.OpenRule.FleetWindow,
			OpenTimeout: testConfig.Breaker.OpenTimeout, Keys: []Key{{Op: OpOpen}}}); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if err := bud.Close(); err != nil {
			t.Fatal(err)
		}
		exchanges := store.Exchanges()
		if err := b.SyncNow(t.Context()); !errors.Is(err, ErrClosed) {
			t.Errorf("breaker SyncNow after Close: %v, want ErrClosed", err)
		}
		if err := bud.SyncNow(t.Context()); !errors.Is(err, ErrClosed) {
			t.Errorf("budget SyncNow after Close: %v, want ErrClosed", err)
		}
		if n := store.Exchanges(); n != exchanges {
			t.Errorf("%d exchanges reached the store after Close, want 0", n-exchanges)
		}
		if _, _, stale := b.FleetStatus(time.Now()); !stale {
			t.Error("breaker view fresh after Close and SyncNow, want stale")
		}
		if _, _, stale := bud.FleetStatus(time.Now()); !stale {
			t.Error("budget view fresh after Close and SyncNow, want stale")
		}
		if got := b.State(); got != breaker.StateClosed {
			t.Errorf("state %v after Close, want the local breaker's CLOSED", got)
		}
		if !call(b, 0) {
			t.Error("the closed fleet breaker refused a call its local breaker admits")
		}
	})
}

// A frozen store whose exchanges wait out a long Timeout does not keep an old view in use:
// the view turns stale StaleAfter after the last successful exchange began, while the next
// exchange still waits, and a fleet OPEN then no longer refuses calls the local breaker
// admits (Config.StaleAfter: "how old the fleet view may grow").
func TestViewStaleOnTimeWhileAnExchangeWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &switchStore{Store: new(MemoryStore)}
		b := newReplica(t, "r", store, 2*time.Second, 0) // Interval 100 ms: StaleAfter 300 ms
		time.Sleep(time.Second)
		if err := store.Exchange(t.Context(), &Exchange{Group: "svc:breaker", Replica: "other", Window: testConfig.OpenRule.FleetWindow,
			OpenTimeout: testConfig.Breaker.OpenTimeout, Keys: []Key{{Op: OpOpen}}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // learnt within two intervals
		if b.State() != breaker.StateOpen {
			t.Fatalf("state %v, want the fleet's OPEN", b.State())
		}
		store.set(false, true) // the syncer's next exchange waits 2 s
		frozeAt := time.Now()
		time.Sleep(400 * time.Millisecond)
		age, _, stale := b.FleetStatus(time.Now())
		if !stale || age < 400*time.Millisecond {
			t.Errorf("view %v old with the store frozen %v ago: stale %v, want stale (StaleAfter 300ms)", age, time.Since(frozeAt), stale)
		}
		if b.State() != breaker.StateClosed || !call(b, 0) {
			t.Errorf("state %v: the stale fleet OPEN still decides, want the local breaker's CLOSED", b.State())
		}
	})
}

// Close on a frozen store waits one Timeout, for its flush, and not first for the exchange
// the syncer has in flight (Close: "one exchange bounded by Config.Timeout"): that one gives
// up at once and its counts go with the flush.
func TestCloseWaitsOneTimeoutOnAFrozenStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		memory := new(MemoryStore)
		store := &switchStore{Store: memory}
		b := newReplica(t, "r", store, time.Second, 0)
		time.Sleep(time.Second)
		store.set(false, true)
		time.Sleep(150 * time.Millisecond) // the syncer's exchange now waits on the store
		start := time.Now()
		err := b.Close()
		if took := time.Since(start); took != time.Second || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Close took %v and returned %v, want 1s (one Timeout) and the flush's deadline", took, err)
		}
	})
}
