package fleet

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
)

// failingOnce is a store whose next exchange fails when fail is set.
type failingOnce struct {
	*MemoryStore
	fail bool
}

func (s *failingOnce) Exchange(ctx context.Context, x *Exchange) error {
	if s.fail {
		s.fail = false
		return errors.New("store down")
	}
	return s.MemoryStore.Exchange(ctx, x)
}

// A failed exchange sends its counts again at the next one; the replica's own requests in
// the window must count them once, not once per attempt to send them, or its share of the
// fleet's retries grows with every failed exchange. Replica a makes 60 requests, b 40; a's
// first exchange fails. The fleet then has 100 requests and a floor-free 10% rule leaves 10
// retries, of which a's share is 10 × (60+1) / (100+2) = 5.98: 5 or 6 tokens (counting its
// 60 twice gave 10 × 101 / 102: 9 or 10).
func TestFailedExchangeCountsOwnRequestsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		memory := new(MemoryStore)
		flaky := &failingOnce{MemoryStore: memory, fail: true}
		rule := budget.RatioConfig{MinRetriesPerSecond: retry.None}
		newReplica := func(name string, store Store) *Budget {
			b, err := NewBudget(BudgetConfig{Budget: rule,
				Fleet: Config{Store: store, Name: "n", Replica: name, Interval: time.Hour}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return b
		}
		a, b := newReplica("a", flaky), newReplica("b", memory)
		for range 60 {
			a.Done(false, retry.ResultSuccess)
		}
		for range 40 {
			b.Done(false, retry.ResultSuccess)
		}
		ctx := context.Background()
		if err := a.SyncNow(ctx); err == nil {
			t.Fatal("a's first exchange succeeded; the test needs it to fail")
		}
		if err := b.SyncNow(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.SyncNow(ctx); err != nil {
			t.Fatal(err)
		}
		if got := a.Tokens(); got != 5 && got != 6 {
			t.Errorf("a's share: %d tokens, want 5 or 6 (10 × 61 / 102)", got)
		}
	})
}
