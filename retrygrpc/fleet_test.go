package retrygrpc_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/retrygrpc"
	"google.golang.org/grpc/codes"
)

// A fleet breaker group serves as WithBreakers: the failures one replica sees through its
// connection open the breaker of that target for another replica, which then refuses calls
// without an attempt.
func TestFleetBreakersPerTarget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := new(fleet.MemoryStore)
		replica := func(name string) *fleet.BreakerGroup {
			g, err := fleet.NewBreakerGroup(fleet.BreakerConfig{OpenRule: fleet.OpenRule{MinFleetCalls: 5},
				Fleet:   fleet.Config{Store: store, Name: "orders", Replica: name, Interval: 100 * time.Millisecond},
				Breaker: breaker.Config{ConsecutiveFailures: 100}}) // the fleet rule decides
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { g.Close() })
			return g
		}
		a, b := replica("a"), replica("b")
		s := newServer(answer{code: codes.Unavailable})
		ccA := dialBufconn(t, s, interceptor(t, constant(t, 1, 0), nil, retrygrpc.WithBreakers(a))...)
		ccB := dialBufconn(t, s, interceptor(t, constant(t, 1, 0), nil, retrygrpc.WithBreakers(b))...)
		get(t.Context(), ccB, methodGet) // b learns of the target, which it will follow at each tick
		for range 5 {
			get(t.Context(), ccA, methodGet)
		}
		time.Sleep(time.Second) // ticks: a's counts reach the store; b reads the fleet's state
		_, err := get(t.Context(), ccB, methodGet)
		if !errors.Is(err, retry.ErrCircuitOpen) || len(s.seen()) != 6 {
			t.Errorf("replica b: %v after %d attempts in all, want circuit_open and no attempt of its own", err, len(s.seen()))
		}
	})
}
