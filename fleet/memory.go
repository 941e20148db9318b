package fleet

import (
	"context"
	"sync"
	"time"

	"github.com/retrykit/retry/breaker"
)

// MemoryStore is a [Store] in this process's memory, for tests and simulations: replicas
// sharing one MemoryStore form a fleet. It follows the same rules as the Redis store, with
// time.Now as its clock. The zero MemoryStore is ready to use; it is safe for concurrent use.
// Its Exchange fails with ctx's error when ctx has ended, and otherwise never fails.
type MemoryStore struct {
	mu     sync.Mutex
	groups map[string]*memoryGroup
	// exchanges counts Exchange calls that reached the store.
	exchanges int64
}

type memoryGroup struct {
	replicas map[string]time.Time // last exchange of each replica
	keys     map[string]*memoryKey
}

type memoryKey struct {
	buckets    map[int64][2]int64 // by bucket number: time since the Unix epoch / (window/10)
	open       bool               // OPEN or HALF_OPEN
	openUntil  time.Time          // OPEN until then, HALF_OPEN after
	trialUntil time.Time          // an election holds until then
}

// Exchanges returns how many exchanges reached the store.
func (m *MemoryStore) Exchanges() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.exchanges
}

// Exchange implements [Store].
func (m *MemoryStore) Exchange(ctx context.Context, x *Exchange) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.exchanges++
	now := time.Now()
	if m.groups == nil {
		m.groups = make(map[string]*memoryGroup)
	}
	g := m.groups[x.Group]
	if g == nil {
		g = &memoryGroup{replicas: make(map[string]time.Time), keys: make(map[string]*memoryKey)}
		m.groups[x.Group] = g
	}
	g.replicas[x.Replica] = now
	for r, at := range g.replicas {
		if now.Sub(at) > x.Window {
			delete(g.replicas, r)
		}
	}
	x.Replicas = len(g.replicas)
	width := max(x.Window/10, time.Millisecond)
	bucket := now.UnixNano() / int64(width)
	for i := range x.Keys {
		k := &x.Keys[i]
		s := g.keys[k.Name]
		if s == nil {
			s = &memoryKey{buckets: make(map[int64][2]int64)}
			g.keys[k.Name] = s
		}
		c := s.buckets[bucket]
		c[0] += k.Add[0]
		c[1] += k.Add[1]
		s.buckets[bucket] = c
		k.TrialWon = false
		switch k.Op {
		case OpOpen:
			if !s.open {
				s.open, s.openUntil, s.trialUntil = true, now.Add(x.OpenTimeout), time.Time{}
			}
		case OpTrial:
			if s.open && !now.Before(s.openUntil) && !now.Before(s.trialUntil) {
				s.trialUntil, k.TrialWon = now.Add(x.OpenTimeout), true
			}
		case OpTrialSuccess:
			if s.open {
				s.open, s.trialUntil = false, time.Time{}
				clear(s.buckets)
			}
		case OpTrialFailure:
			if s.open {
				s.openUntil, s.trialUntil = now.Add(x.OpenTimeout), time.Time{}
			}
		}
		k.Total = [2]int64{}
		for b, c := range s.buckets {
			if b > bucket-10 {
				k.Total[0] += c[0]
				k.Total[1] += c[1]
			} else {
				delete(s.buckets, b)
			}
		}
		switch {
		case !s.open:
			k.State, k.OpenLeft = breaker.StateClosed, 0
		case now.Before(s.openUntil):
			k.State, k.OpenLeft = breaker.StateOpen, s.openUntil.Sub(now)
		default:
			k.State, k.OpenLeft = breaker.StateHalfOpen, 0
		}
	}
	x.Opened = x.Opened[:0]
	for name, s := range g.keys {
		switch {
		case !s.open:
		case now.Before(s.openUntil):
			x.Opened = append(x.Opened, Key{Name: name, State: breaker.StateOpen, OpenLeft: s.openUntil.Sub(now)})
		default:
			x.Opened = append(x.Opened, Key{Name: name, State: breaker.StateHalfOpen})
		}
	}
	return nil
}
