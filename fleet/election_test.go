package fleet

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
)

// slowReplyStore is a Store whose replies take delay to come back after the store applied
// the exchange: the latency of a far or loaded Redis.
type slowReplyStore struct {
	Store
	delay time.Duration
}

func (s slowReplyStore) Exchange(ctx context.Context, x *Exchange) error {
	err := s.Store.Exchange(ctx, x)
	time.Sleep(s.delay)
	return err
}

// An elected replica that does not make its trial call loses the election when the store's
// election ends, not a reply's latency later: once another replica is elected, the first
// one's late call is refused, so the fleet never makes two trial calls at once (issue 10:
// "exactly one trial call in the whole fleet per open timeout").
func TestElectionEndsWithTheStores(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(MemoryStore)
		openTimeout := testConfig.Breaker.OpenTimeout
		// The fleet is OPEN before either replica starts.
		if err := store.Exchange(t.Context(), &Exchange{Group: "svc:breaker", Replica: "other", Window: testConfig.OpenRule.FleetWindow,
			OpenTimeout: openTimeout, Keys: []Key{{Op: OpOpen}}}); err != nil {
			t.Fatal(err)
		}
		// a's view, 400 ms old when it comes, may grow 3 s old.
		a := newReplica(t, "a", slowReplyStore{store, 400 * time.Millisecond}, time.Second, 3*time.Second)
		b := newReplica(t, "b", store, 0, 0)

		// Only a is refused while the fleet is OPEN, so a alone asks for the trial, and wins.
		deadline := time.Now().Add(openTimeout + 2*time.Second)
		for a.mode.Load() != modeTrial {
			if time.Now().After(deadline) {
				t.Fatal("replica a was never elected")
			}
			if token, ok, _ := a.Allow(); ok {
				a.Done(token, retry.ResultIgnored) // elected meanwhile: keep the trial unmade
			}
			time.Sleep(10 * time.Millisecond)
		}
		// a never makes its call; b calls every 10 ms until the store elects it.
		deadline = time.Now().Add(openTimeout + time.Second)
		for {
			if time.Now().After(deadline) {
				t.Fatal("replica b was never elected after a's election ended")
			}
			token, ok, _ := b.Allow()
			if ok {
				if _, trial := trialOf(token); !trial {
					t.Fatalf("b admitted a call with token %d, want the trial's", token)
				}
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if token, ok, _ := a.Allow(); ok {
			t.Errorf("a admitted a call (token %d) while b makes the fleet's trial call", token)
		}
	})
}

// newReplica returns a breaker of key "" on store named replica, with testConfig and the
// exchange timeout and StaleAfter given (0: the defaults), closed at the end of the test.
func newReplica(t *testing.T, replica string, store Store, timeout, staleAfter time.Duration) *Breaker {
	t.Helper()
	cfg := testConfig
	cfg.Fleet.Timeout, cfg.Fleet.StaleAfter = timeout, staleAfter
	return newReplicaWith(t, replica, store, cfg)
}
