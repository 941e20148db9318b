package fleet

import (
	"context"
	"sync"
	"time"

	"github.com/retrykit/retry/breaker"
)

// MemoryStore is a [Store] in this process's memory, for tests and simulations: replicas
// sharing one MemoryStore form a fleet; kept in a file in its JSON form (MarshalJSON)
// between exchanges, under a lock, it serves the processes of one machine. It follows the
// same rules as the Redis store, with time.Now as its clock. The zero MemoryStore is ready to use; it is safe for concurrent use.
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
	Replicas      map[string]time.Time   // last exchange of each replica
	ReplicasUntil time.Time              // Window after the last exchange
	Seen          map[string]*memorySeen // by replica: the Counts of its last exchange, by key
	Keys          map[string]*memoryKey
	StatesUntil   time.Time // the keys' records: keep after the last change of one
}

// memorySeen is what one replica last reported.
type memorySeen struct {
	Counts map[string][2]int64
	Until  time.Time // Window after the exchange
}

type memoryKey struct {
	Buckets     map[int64][2]int64 // by bucket number: time since the Unix epoch / (window/10)
	CountsUntil time.Time          // Window after the last counts added
	Record      memoryRecord
	Grants      map[string]memoryGrant // budget groups: by replica
	GrantsUntil time.Time              // GrantFor after the last exchange: every grant has ended
	Rate        memoryRate             // rate groups
}

// memoryRecord is a breaker key's fleet state.
type memoryRecord struct {
	Open       bool      // OPEN or HALF_OPEN
	Changed    int64     // KeyState.Changed
	OpenUntil  time.Time // OPEN until then, HALF_OPEN after
	Trial      int64     // the latest election
	TrialUntil time.Time // it holds until then; zero once decided or released (or none)
	Touched    time.Time // the record's last change: it is forgotten keep after; zero: none
}

// memoryGrant is one replica's grant of a budget key.
type memoryGrant struct {
	N       int64
	Expires time.Time
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
	g.Replicas[x.Replica] = now
	for r, at := range g.Replicas {
		if now.Sub(at) > x.Window {
			delete(g.Replicas, r)
		}
	}
	g.ReplicasUntil = now.Add(x.Window)
	x.Replicas = len(g.Replicas)
	seen := g.Seen[x.Replica]
	if seen == nil {
		seen = &memorySeen{Counts: make(map[string][2]int64)}
		g.Seen[x.Replica] = seen
	}
	seen.Until = now.Add(x.Window)
	for i := range x.Keys {
		k := &x.Keys[i]
		s := g.key(k.Name)
		s.count(k, seen, now, x.Window)
		k.State, k.TrialWon, k.Grant = KeyState{}, false, 0
		if x.Budget != nil {
			k.Grant = s.grant(x, k, now)
			continue
		}
		if now.Sub(s.Record.Touched) > keep {
			s.Record = memoryRecord{}
		}
		var closed bool
		k.TrialWon, closed = s.Record.apply(k, x, now)
		if closed { // by this exchange's trial success: the counts are forgotten
			clear(s.Buckets)
			k.Total = [2]int64{}
		}
		if s.Record.Touched.Equal(now) { // changed
			g.StatesUntil = now.Add(keep)
		}
		k.State = s.Record.state(now)
	}
	x.Opened = x.Opened[:0]
	if x.Budget == nil {
		for name, s := range g.Keys {
			switch {
			case s.Record.Touched.IsZero():
			case now.Sub(s.Record.Touched) > keep:
				s.Record = memoryRecord{} // forgotten
			case s.Record.Open:
				x.Opened = append(x.Opened, Key{Name: name, State: s.Record.state(now)})
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
		if now.After(g.ReplicasUntil) {
			clear(g.Replicas)
		}
		for r, s := range g.Seen {
			if now.After(s.Until) {
				delete(g.Seen, r)
			}
		}
		statesGone := now.After(g.StatesUntil)
		for key, s := range g.Keys {
			if now.After(s.CountsUntil) {
				clear(s.Buckets)
			}
			if now.After(s.GrantsUntil) {
				clear(s.Grants)
			}
			if statesGone {
				s.Record = memoryRecord{}
			}
			s.Rate.forget(now)
			if len(s.Buckets) == 0 && len(s.Grants) == 0 && s.Record.Touched.IsZero() && s.Rate.empty() {
				delete(g.Keys, key)
			}
		}
		if len(g.Replicas) == 0 && len(g.Seen) == 0 && len(g.Keys) == 0 {
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
		g = &memoryGroup{Replicas: make(map[string]time.Time), Seen: make(map[string]*memorySeen),
			Keys: make(map[string]*memoryKey)}
		m.groups[name] = g
	}
	return g
}

func (g *memoryGroup) key(name string) *memoryKey {
	s := g.Keys[name]
	if s == nil {
		s = &memoryKey{Buckets: make(map[int64][2]int64), Grants: make(map[string]memoryGrant)}
		g.Keys[name] = s
	}
	return s
}

// count adds k's counts not yet counted (Key.Counts) to the window, and sets k.Total.
func (s *memoryKey) count(k *Key, seen *memorySeen, now time.Time, window time.Duration) {
	add := k.Unsent
	if last, ok := seen.Counts[k.Name]; ok && k.Counts[0] >= last[0] && k.Counts[1] >= last[1] {
		add = [2]int64{k.Counts[0] - last[0], k.Counts[1] - last[1]}
	}
	seen.Counts[k.Name] = k.Counts
	bucket := now.UnixNano() / int64(max(window/10, time.Millisecond))
	if add != [2]int64{} {
		c := s.Buckets[bucket]
		c[0] += add[0]
		c[1] += add[1]
		s.Buckets[bucket] = c
		s.CountsUntil = now.Add(window)
	}
	k.Total = [2]int64{}
	for b, c := range s.Buckets {
		if b > bucket-10 {
			k.Total[0] += c[0]
			k.Total[1] += c[1]
		} else {
			delete(s.Buckets, b)
		}
	}
}

// grant replaces this replica's grant of a budget key by the rule's (none in a final
// exchange), and returns it.
func (s *memoryKey) grant(x *Exchange, k *Key, now time.Time) int64 {
	var others int64
	for r, g := range s.Grants {
		switch {
		case !now.Before(g.Expires):
			delete(s.Grants, r)
		case r != x.Replica:
			others += g.N
		}
	}
	n := int64(0)
	if !x.Final {
		n = Grant(*x.Budget, k.Total[0], k.Total[1], others, k.Own, x.Replicas, k.Draw)
	}
	if n > 0 {
		s.Grants[x.Replica] = memoryGrant{n, now.Add(x.Budget.GrantFor)}
	} else {
		delete(s.Grants, x.Replica)
	}
	s.GrantsUntil = now.Add(x.Budget.GrantFor)
	return n
}

// apply takes k.Known when it is newer, then k's Op, and reports whether an OpTrial won
// and whether an OpTrialSuccess closed the key.
func (r *memoryRecord) apply(k *Key, x *Exchange, now time.Time) (won, closed bool) {
	ms := now.UnixMilli()
	next := max(ms, r.Changed+1)
	known := k.Known
	if known.Changed > r.Changed { // the store forgot or went back: the replica knows better
		*r = memoryRecord{Open: known.State != breaker.StateClosed, Changed: known.Changed, Trial: r.Trial, Touched: now}
		if r.Open {
			r.OpenUntil = now.Add(known.OpenLeft)
		}
	}
	if r.Open && known.Changed == r.Changed && known.Trial > r.Trial && known.TrialLeft > 0 {
		r.Trial, r.TrialUntil, r.Touched = known.Trial, now.Add(known.TrialLeft), now
	}
	pending := r.Open && k.Trial == r.Trial && !r.TrialUntil.IsZero() // the result's election is undecided
	switch {
	case k.Op == OpOpen && !r.Open:
		*r = memoryRecord{Open: true, Changed: next, OpenUntil: now.Add(openFor(k, x)), Trial: r.Trial}
	case k.Op == OpTrial && r.Open && !now.Before(r.OpenUntil) && !now.Before(r.TrialUntil):
		r.Trial, r.TrialUntil, won = max(ms, r.Trial+1, r.Changed+1), now.Add(x.OpenTimeout+x.TrialTimeout), true
	case k.Op == OpTrialSuccess && pending:
		*r = memoryRecord{Changed: next, Trial: r.Trial}
		closed = true
	case k.Op == OpTrialFailure && pending:
		*r = memoryRecord{Open: true, Changed: next, OpenUntil: now.Add(openFor(k, x)), Trial: r.Trial}
	case k.Op == OpTrialRelease && k.Trial == r.Trial && now.Before(r.TrialUntil):
		r.TrialUntil = time.Time{}
	default:
		return false, false
	}
	r.Touched = now
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
	s := KeyState{Changed: r.Changed}
	switch {
	case !r.Open:
		return s
	case now.Before(r.OpenUntil):
		s.State, s.OpenLeft = breaker.StateOpen, r.OpenUntil.Sub(now)
	default:
		s.State = breaker.StateHalfOpen
	}
	if now.Before(r.TrialUntil) {
		s.Trial, s.TrialLeft = r.Trial, r.TrialUntil.Sub(now)
	}
	return s
}
