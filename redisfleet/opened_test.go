package redisfleet

import (
	"context"
	"testing"
	"time"

	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// A failed trial reopens the key and refreshes its record and the state hash's TTL: in an
// outage longer than the record's life (the open and trial timeouts and the window), a
// replica that never called the destination still learns that it is OPEN.
func TestTrialFailureKeepsTheKeyListed(t *testing.T) {
	s := redistest.Start(t)
	c := fleetClient(t, s)
	store := New(c, "")
	ctx := context.Background()
	const openTimeout, trialTimeout, window = 100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond
	ex := func(replica string, keys ...fleet.Key) *fleet.Exchange {
		t.Helper()
		x := &fleet.Exchange{Group: "svc:breaker", Replica: replica, Window: window, OpenTimeout: openTimeout,
			TrialTimeout: trialTimeout, Keys: keys}
		if err := store.Exchange(ctx, x); err != nil {
			t.Fatal(err)
		}
		return x
	}
	ex("a", fleet.Key{Name: "https://down:443", Op: fleet.OpOpen})
	// Trials fail, one per open timeout, for longer than the record's life (300 ms).
	for start := time.Now(); time.Since(start) < 800*time.Millisecond; {
		time.Sleep(openTimeout + 10*time.Millisecond)
		k := ex("a", fleet.Key{Name: "https://down:443", Op: fleet.OpTrial}).Keys[0]
		if !k.TrialWon {
			t.Fatalf("no election after the open timeout: %+v", k)
		}
		if k = ex("a", fleet.Key{Name: "https://down:443", Op: fleet.OpTrialFailure, Trial: k.State.Trial}).Keys[0]; k.State.State != breaker.StateOpen {
			t.Fatalf("after the failed trial: %+v, want OPEN", k)
		}
	}
	if ttl := c.PTTL(ctx, "{svc:breaker}:st").Val(); ttl < 250*time.Millisecond || ttl > openTimeout+trialTimeout+window {
		t.Errorf("state hash's TTL %v after the key reopened, want about 300ms (the open and trial timeouts and the window)", ttl)
	}
	if o := ex("b").Opened; len(o) != 1 || o[0].Name != "https://down:443" || o[0].State.State != breaker.StateOpen {
		t.Errorf("opened keys %+v, want https://down:443 OPEN", o)
	}
}
