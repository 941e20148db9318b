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
// Its Exchange fails with ctx's error when ctx has ended, and otherwise never fails. Forget
// drops its data, as a Redis FLUSHALL does.
type MemoryStore struct {
	mu     sync.Mutex
	groups map[string]*memoryGroup
	// exchanges counts Exchange calls that reached the store.
	exchanges int64
}

// memoryGroup is a group's data. Each part is forgotten after its until, as Redis forgets a
// key after its TTL (see [Store]).
type memoryGroup struct {
	replicas      map[string]time.Time   // last exchange of each replica
	replicasUntil time.Time              // Window after the last exchange
	seen          map[string]*memorySeen // by replica: the Counts of its last exchange, by key
	keys          map[string]*memoryKey
	statesUntil   time.Time // the keys' records: keep after the last change of one
}

// memorySeen is what one replica last reported.
type memorySeen struct {
	counts map[string][2]int64
	until  time.Time // Window after the exchange
}

type memoryKey struct {
	buckets     map[int64][2]int64 // by bucket number: time since the Unix epoch / (window/10)
	countsUntil time.Time          // Window after the last counts added
	record      memoryRecord
	grants      map[string]memoryGrant // budget groups: by replica
	grantsUntil time.Time              // GrantFor after the last exchange: every grant has ended
	rate        memoryRate             // rate groups
}

// memoryRecord is a breaker key's fleet state.
type memoryRecord struct {
	open       bool      // OPEN or HALF_OPEN
	changed    int64     // KeyState.Changed
	openUntil  time.Time // OPEN until then, HALF_OPEN after
	trial      int64     // the latest election
	trialUntil time.Time // it holds until then; zero once decided or released (or none)
	touched    time.Time // the record's last change: it is forgotten keep after; zero: none
}

// memoryGrant is one replica's grant of a budget key.
type memoryGrant struct {
	n       int64
	expires time.Time
}

// Exchanges returns how many exchanges reached the store.
func (m *MemoryStore) Exchanges() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.exchanges
}

// Forget drops every group's counts and state, as a Redis FLUSHALL does; the replicas'
// next exchanges restore what they know (Key.Known).
func (m *MemoryStore) Forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.groups = nil
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
	m.expire(now)
	g := m.group(x.Group)
	if x.Rate != nil {
		x.Replicas = 0
		for i := range x.Keys {
			x.Replicas = max(x.Replicas, g.key(x.Keys[i].Name).exchangeRate(x, &x.Keys[i], now))
		}
		x.Opened = x.Opened[:0]
		return nil
	}
	keep := x.stateKeep()
	g.replicas[x.Replica] = now
	for r, at := range g.replicas {
		if now.Sub(at) > x.Window {
			delete(g.replicas, r)
		}
	}
	g.replicasUntil = now.Add(x.Window)
	x.Replicas = len(g.replicas)
	seen := g.seen[x.Replica]
	if seen == nil {
		seen = &memorySeen{counts: make(map[string][2]int64)}
		g.seen[x.Replica] = seen
	}
	seen.until = now.Add(x.Window)
	for i := range x.Keys {
		k := &x.Keys[i]
		s := g.key(k.Name)
		s.count(k, seen, now, x.Window)
		k.State, k.TrialWon, k.Grant = KeyState{}, false, 0
		if x.Budget != nil {
			k.Grant = s.grant(x, k, now)
			continue
		}
		if now.Sub(s.record.touched) > keep {
			s.record = memoryRecord{}
		}
		var closed bool
		k.TrialWon, closed = s.record.apply(k, x, now)
		if closed { // by this exchange's trial success: the counts are forgotten
			clear(s.buckets)
			k.Total = [2]int64{}
		}
		if s.record.touched.Equal(now) { // changed
			g.statesUntil = now.Add(keep)
		}
		k.State = s.record.state(now)
	}
	x.Opened = x.Opened[:0]
	if x.Budget == nil {
		for name, s := range g.keys {
			switch {
			case s.record.touched.IsZero():
			case now.Sub(s.record.touched) > keep:
				s.record = memoryRecord{} // forgotten
			case s.record.open:
				x.Opened = append(x.Opened, Key{Name: name, State: s.record.state(now)})
			}
		}
	}
	return nil
}

// stateKeep is how long a breaker key's state record outlives its last change (see
// [Store]): as long as the OPEN or the election it may hold, and a window more.
func (x *Exchange) stateKeep() time.Duration {
	return x.OpenTimeout + x.TrialTimeout + x.Window
}

// expire forgets every part of every group whose time is up (see [Store]), and the groups
// and keys left empty.
func (m *MemoryStore) expire(now time.Time) {
	for name, g := range m.groups {
		if now.After(g.replicasUntil) {
			clear(g.replicas)
		}
		for r, s := range g.seen {
			if now.After(s.until) {
				delete(g.seen, r)
			}
		}
		statesGone := now.After(g.statesUntil)
		for key, s := range g.keys {
			if now.After(s.countsUntil) {
				clear(s.buckets)
			}
			if now.After(s.grantsUntil) {
				clear(s.grants)
			}
			if statesGone {
				s.record = memoryRecord{}
			}
			s.rate.forget(now)
			if len(s.buckets) == 0 && len(s.grants) == 0 && s.record.touched.IsZero() && s.rate.empty() {
				delete(g.keys, key)
			}
		}
		if len(g.replicas) == 0 && len(g.seen) == 0 && len(g.keys) == 0 {
			delete(m.groups, name)
		}
	}
}

func (m *MemoryStore) group(name string) *memoryGroup {
	if m.groups == nil {
		m.groups = make(map[string]*memoryGroup)
	}
	g := m.groups[name]
	if g == nil {
		g = &memoryGroup{replicas: make(map[string]time.Time), seen: make(map[string]*memorySeen),
			keys: make(map[string]*memoryKey)}
		m.groups[name] = g
	}
	return g
}

func (g *memoryGroup) key(name string) *memoryKey {
	s := g.keys[name]
	if s == nil {
		s = &memoryKey{buckets: make(map[int64][2]int64), grants: make(map[string]memoryGrant)}
		g.keys[name] = s
	}
	return s
}

// count adds k's counts not yet counted (Key.Counts) to the window, and sets k.Total.
func (s *memoryKey) count(k *Key, seen *memorySeen, now time.Time, window time.Duration) {
	add := k.Unsent
	if last, ok := seen.counts[k.Name]; ok && k.Counts[0] >= last[0] && k.Counts[1] >= last[1] {
		add = [2]int64{k.Counts[0] - last[0], k.Counts[1] - last[1]}
	}
	seen.counts[k.Name] = k.Counts
	bucket := now.UnixNano() / int64(max(window/10, time.Millisecond))
	if add != [2]int64{} {
		c := s.buckets[bucket]
		c[0] += add[0]
		c[1] += add[1]
		s.buckets[bucket] = c
		s.countsUntil = now.Add(window)
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
}

// grant replaces this replica's grant of a budget key by the rule's (none in a final
// exchange), and returns it.
func (s *memoryKey) grant(x *Exchange, k *Key, now time.Time) int64 {
	var others int64
	for r, g := range s.grants {
		switch {
		case !now.Before(g.expires):
			delete(s.grants, r)
		case r != x.Replica:
			others += g.n
		}
	}
	n := int64(0)
	if !x.Final {
		n = Grant(*x.Budget, k.Total[0], k.Total[1], others, k.Own, x.Replicas, k.Draw)
	}
	if n > 0 {
		s.grants[x.Replica] = memoryGrant{n, now.Add(x.Budget.GrantFor)}
	} else {
		delete(s.grants, x.Replica)
	}
	s.grantsUntil = now.Add(x.Budget.GrantFor)
	return n
}

// apply takes k.Known when it is newer, then k's Op, and reports whether an OpTrial won
// and whether an OpTrialSuccess closed the key.
func (r *memoryRecord) apply(k *Key, x *Exchange, now time.Time) (won, closed bool) {
	ms := now.UnixMilli()
	next := max(ms, r.changed+1)
	known := k.Known
	if known.Changed > r.changed { // the store forgot or went back: the replica knows better
		*r = memoryRecord{open: known.State != breaker.StateClosed, changed: known.Changed, trial: r.trial, touched: now}
		if r.open {
			r.openUntil = now.Add(known.OpenLeft)
		}
	}
	if r.open && known.Changed == r.changed && known.Trial > r.trial && known.TrialLeft > 0 {
		r.trial, r.trialUntil, r.touched = known.Trial, now.Add(known.TrialLeft), now
	}
	pending := r.open && k.Trial == r.trial && !r.trialUntil.IsZero() // the result's election is undecided
	switch {
	case k.Op == OpOpen && !r.open:
		*r = memoryRecord{open: true, changed: next, openUntil: now.Add(openFor(k, x)), trial: r.trial}
	case k.Op == OpTrial && r.open && !now.Before(r.openUntil) && !now.Before(r.trialUntil):
		r.trial, r.trialUntil, won = max(ms, r.trial+1, r.changed+1), now.Add(x.OpenTimeout+x.TrialTimeout), true
	case k.Op == OpTrialSuccess && pending:
		*r = memoryRecord{changed: next, trial: r.trial}
		closed = true
	case k.Op == OpTrialFailure && pending:
		*r = memoryRecord{open: true, changed: next, openUntil: now.Add(openFor(k, x)), trial: r.trial}
	case k.Op == OpTrialRelease && k.Trial == r.trial && now.Before(r.trialUntil):
		r.trialUntil = time.Time{}
	default:
		return false, false
	}
	r.touched = now
	return won, closed
}

// openFor is how long the OPEN of k's OpOpen or OpTrialFailure lasts: Key.OpenFor, or the
// exchange's OpenTimeout when 0.
func openFor(k *Key, x *Exchange) time.Duration {
	if k.OpenFor > 0 {
		return k.OpenFor
	}
	return x.OpenTimeout
}

// state is the record's KeyState at now.
func (r *memoryRecord) state(now time.Time) KeyState {
	s := KeyState{Changed: r.changed}
	switch {
	case !r.open:
		return s
	case now.Before(r.openUntil):
		s.State, s.OpenLeft = breaker.StateOpen, r.openUntil.Sub(now)
	default:
		s.State = breaker.StateHalfOpen
	}
	if now.Before(r.trialUntil) {
		s.Trial, s.TrialLeft = r.trial, r.trialUntil.Sub(now)
	}
	return s
}
