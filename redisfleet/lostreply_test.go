package redisfleet

import (
	"context"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// An exchange that Redis applied but whose reply came after the exchange's timeout is sent
// again at the next exchange, and counted once (issue 24 item 1): 100 failures told through
// a proxy that delays replies by 300 ms, with a timeout of 100 ms, then once more with the
// delay gone, leave Redis at [100 100]. Before the fix, at [200 200]: slow replies opened
// the fleet early. The same for a budget's requests and retries.
func TestLostReplyCountedOnce(t *testing.T) {
	s := redistest.Start(t)
	p := redistest.NewProxy(t, s.Addr())
	// A client each, so that each exchange has a connection of its own ready (a new one would
	// wait on the proxy for its handshake and never send the script).
	fc := fleet.Config{Store: New(fleetClient(t, p), ""), Name: "svc", Replica: "a", Interval: time.Hour,
		Timeout: 100 * time.Millisecond}
	g, err := fleet.NewBreakerGroup(fleet.BreakerConfig{Fleet: fc, Breaker: breaker.Config{ConsecutiveFailures: 1000},
		OpenRule: fleet.OpenRule{MinFleetCalls: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	fc.Store = New(fleetClient(t, p), "")
	bud, err := fleet.NewBudget(fleet.BudgetConfig{Fleet: fc})
	if err != nil {
		t.Fatal(err)
	}
	defer bud.Close()
	ctx := context.Background()
	syncBoth := func() error {
		if err := g.SyncNow(ctx); err != nil {
			return err
		}
		return bud.SyncNow(ctx)
	}
	if err := syncBoth(); err != nil { // a connection made and the script loaded, without delay
		t.Fatal(err)
	}
	b := g.Get("")
	for range 100 {
		call(b, retry.ResultFailure)
		bud.Done(false, retry.ResultFailure)
		if bud.AllowRetry() {
			bud.Done(true, retry.ResultFailure)
		}
	}
	p.SetDelay(300 * time.Millisecond)
	if err := g.SyncNow(ctx); err == nil {
		t.Fatal("the breaker's exchange succeeded through the delaying proxy; the test needs it to time out")
	}
	if err := bud.SyncNow(ctx); err == nil {
		t.Fatal("the budget's exchange succeeded through the delaying proxy; the test needs it to time out")
	}
	direct := New(fleetClient(t, s), "")
	breakers := readTotals(t, direct, "svc:breaker", nil)
	budgets := readTotals(t, direct, "svc:budget", &fleet.BudgetRule{Ratio: 0.1, GrantFor: time.Second})
	if breakers != [2]int64{100, 100} || budgets[0] < 100 {
		t.Fatalf("Redis holds %v and %v after the timed-out exchanges; the test needs them applied", breakers, budgets)
	}
	time.Sleep(300 * time.Millisecond) // the delayed replies are gone
	p.SetDelay(0)
	if err := syncBoth(); err != nil {
		t.Fatal(err)
	}
	after, afterBudget := readTotals(t, direct, "svc:breaker", nil), readTotals(t, direct, "svc:budget", &fleet.BudgetRule{Ratio: 0.1, GrantFor: time.Second})
	t.Logf("breaker: Redis holds %v after the timed-out exchange, %v after the next; budget: %v, then %v", breakers, after, budgets, afterBudget)
	if after != [2]int64{100, 100} {
		t.Errorf("breaker counts %v after the exchange was sent again, want [100 100]", after)
	}
	if afterBudget != budgets {
		t.Errorf("budget counts %v after the exchange was sent again, want %v", afterBudget, budgets)
	}
}

// readTotals returns the fleet's counts of group's key "" as a replica that adds nothing
// reads them.
func readTotals(t *testing.T, store fleet.Store, group string, rule *fleet.BudgetRule) [2]int64 {
	t.Helper()
	x := &fleet.Exchange{Group: group, Replica: "reader", Window: fleet.DefaultFleetWindow, OpenTimeout: time.Second,
		Budget: rule, Keys: []fleet.Key{{}}}
	if rule != nil {
		x.Window = 10 * time.Second // budget.DefaultWindow
	}
	if err := store.Exchange(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	return x.Keys[0].Total
}
