package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
)

// switchStore is a Store that can be taken down (fails at once) or frozen (blocks until
// the exchange's context ends), like a killed or a SIGSTOPped Redis.
type switchStore struct {
	Store
	mu             sync.Mutex
	down, frozen   bool
	calls, refused int
}

var errDown = errors.New("store down")

func (s *switchStore) set(down, frozen bool) {
	s.mu.Lock()
	s.down, s.frozen = down, frozen
	s.mu.Unlock()
}

func (s *switchStore) Exchange(ctx context.Context, x *Exchange) error {
	s.mu.Lock()
	down, frozen := s.down, s.frozen
	s.calls++
	if down || frozen {
		s.refused++
	}
	s.mu.Unlock()
	switch {
	case frozen:
		<-ctx.Done()
		return ctx.Err()
	case down:
		return errDown
	}
	return s.Store.Exchange(ctx, x)
}

// replicas returns n breakers of key "" named r0, r1, ..., sharing store under cfg, each
// with its own syncer, closed at the end of the test.
func replicas(t *testing.T, n int, store Store, cfg BreakerConfig) []*Breaker {
	t.Helper()
	bs := make([]*Breaker, n)
	for i := range bs {
		bs[i] = newReplicaWith(t, fmt.Sprintf("r%d", i), store, cfg)
	}
	return bs
}

// call makes one call through b with result r; it reports whether b admitted it.
func call(b retry.CircuitBreaker, r retry.Result) bool {
	token, ok, _ := b.Allow()
	if ok {
		b.Done(token, r)
	}
	return ok
}

func states(bs []*Breaker) map[breaker.State]int {
	m := map[breaker.State]int{}
	for _, b := range bs {
		m[b.State()]++
	}
	return m
}

// newReplicaWith returns a breaker of key "" on store named replica, with cfg, closed at
// the end of the test.
func newReplicaWith(t *testing.T, replica string, store Store, cfg BreakerConfig) *Breaker {
	t.Helper()
	cfg.Fleet.Store, cfg.Fleet.Name, cfg.Fleet.Replica = store, "svc", replica
	b, err := NewBreaker(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}
