package redisfleet

import (
	"context"
	"testing"
	"time"

	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// A failed trial reopens the key and keeps it listed among the group's opened keys for as
// long as its state lives: in an outage longer than the opened set's TTL (ten open
// timeouts), a replica that never called the destination still learns that it is OPEN.
// The set is deleted by hand to stand for its expiry ten open timeouts after the opening.
func TestTrialFailureKeepsTheKeyListed(t *testing.T) {
	s := redistest.Start(t)
	c := fleetClient(t, s)
	store := New(c, "")
	ctx := context.Background()
	const openTimeout = time.Minute
	ex := func(replica string, keys ...fleet.Key) *fleet.Exchange {
		t.Helper()
		x := &fleet.Exchange{Group: "svc:breaker", Replica: replica, Window: 10 * time.Second, OpenTimeout: openTimeout, Keys: keys}
		if err := store.Exchange(ctx, x); err != nil {
			t.Fatal(err)
		}
		return x
	}
	ex("a", fleet.Key{Name: "https://down:443", Op: fleet.OpOpen})
	// Ten open timeouts later, the opened set has expired, the key's state (refreshed by
	// each failed trial) has not; a trial fails again.
	if err := c.Del(ctx, "{svc:breaker}:open").Err(); err != nil {
		t.Fatal(err)
	}
	if k := ex("a", fleet.Key{Name: "https://down:443", Op: fleet.OpTrialFailure}).Keys[0]; k.State != breaker.StateOpen {
		t.Fatalf("after the failed trial: %+v, want OPEN", k)
	}
	if ttl := c.PTTL(ctx, "{svc:breaker}:open").Val(); ttl < 10*openTimeout-time.Minute {
		t.Errorf("opened set's TTL %v after the key reopened, want about %v (its state's)", ttl, 10*openTimeout)
	}
	if o := ex("b").Opened; len(o) != 1 || o[0].Name != "https://down:443" || o[0].State != breaker.StateOpen {
		t.Errorf("opened keys %+v, want https://down:443 OPEN", o)
	}
}
