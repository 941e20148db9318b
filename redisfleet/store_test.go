package redisfleet

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// The script's rules are the in-memory store's: counts add up over the window, OpOpen opens
// once, one OpTrial wins, the trial's result closes (forgetting the counts) or reopens.
// Every key carries the group's hash tag and a TTL; after SCRIPT FLUSH (a restart, a
// failover) the next exchange loads the script again by itself.
func TestExchangeRules(t *testing.T) {
	s := redistest.Start(t)
	c := fleetClient(t, s)
	store := New(c, "")
	ctx := context.Background()
	ex := func(replica string, op fleet.Op, add [2]int64) fleet.Key {
		t.Helper()
		x := &fleet.Exchange{Group: "svc:breaker", Replica: replica, Window: 10 * time.Second,
			OpenTimeout: 300 * time.Millisecond, Keys: []fleet.Key{{Name: "https://a:443", Add: add, Op: op}}}
		if err := store.Exchange(ctx, x); err != nil {
			t.Fatal(err)
		}
		return x.Keys[0]
	}
	if k := ex("a", fleet.OpNone, [2]int64{10, 4}); k.Total != [2]int64{10, 4} || k.State != breaker.StateClosed {
		t.Fatalf("after a: %+v", k)
	}
	if k := ex("b", fleet.OpOpen, [2]int64{5, 5}); k.Total != [2]int64{15, 9} || k.State != breaker.StateOpen ||
		k.OpenLeft <= 250*time.Millisecond || k.OpenLeft > 300*time.Millisecond {
		t.Fatalf("after b opens: %+v", k)
	}
	opened := func() []fleet.Key { // what a replica that never called the key learns
		t.Helper()
		x := &fleet.Exchange{Group: "svc:breaker", Replica: "c", Window: 10 * time.Second, OpenTimeout: 300 * time.Millisecond}
		if err := store.Exchange(ctx, x); err != nil {
			t.Fatal(err)
		}
		return x.Opened
	}
	if o := opened(); len(o) != 1 || o[0].Name != "https://a:443" || o[0].State != breaker.StateOpen || o[0].OpenLeft <= 0 {
		t.Fatalf("opened keys %+v, want https://a:443 OPEN", o)
	}
	if k := ex("a", fleet.OpTrial, [2]int64{}); k.TrialWon || k.State != breaker.StateOpen {
		t.Fatalf("trial while OPEN: %+v", k)
	}
	time.Sleep(350 * time.Millisecond) // the open timeout ends
	if k := ex("a", fleet.OpTrial, [2]int64{}); !k.TrialWon || k.State != breaker.StateHalfOpen {
		t.Fatalf("a's trial: %+v", k)
	}
	if k := ex("b", fleet.OpTrial, [2]int64{}); k.TrialWon {
		t.Fatalf("b won a second trial in the same open timeout: %+v", k)
	}
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, "{svc:breaker}:") {
			t.Errorf("key %q outside the group's hash tag", k)
		}
		if ttl := c.PTTL(ctx, k).Val(); ttl <= 0 {
			t.Errorf("key %q has no TTL (%v)", k, ttl)
		}
	}
	if k := ex("a", fleet.OpTrialFailure, [2]int64{1, 1}); k.State != breaker.StateOpen {
		t.Fatalf("after the failed trial (script flushed before): %+v", k)
	}
	time.Sleep(350 * time.Millisecond)
	ex("b", fleet.OpTrial, [2]int64{})
	if k := ex("b", fleet.OpTrialSuccess, [2]int64{}); k.State != breaker.StateClosed || k.Total != [2]int64{} {
		t.Fatalf("after the successful trial: %+v", k)
	}
	if o := opened(); len(o) != 0 {
		t.Fatalf("opened keys %+v after the close, want none", o)
	}
	calls := s.CommandCalls()
	// EVALSHA each time; EVAL only after NOSCRIPT: the first time, and after the flush.
	if calls["evalsha"] != 10 || calls["eval"] != 2 {
		t.Errorf("commandstats %v: want 10 EVALSHA and 2 EVAL", calls)
	}
}
