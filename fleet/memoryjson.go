package fleet

import (
	"encoding/json"
	"fmt"
)

// memoryFormat is the version of MemoryStore's JSON form.
const memoryFormat = 1

// memoryJSON is MemoryStore's JSON form.
type memoryJSON struct {
	Format int                     `json:"format"`
	Groups map[string]*memoryGroup `json:"groups"`
}

// MarshalJSON returns the store's data (every group's counts and state, with their ends on
// the wall clock) as JSON, so that processes can keep one MemoryStore in a file between
// their exchanges and share it; the Exchanges count is not kept. Safe for concurrent use.
func (m *MemoryStore) MarshalJSON() ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return json.Marshal(memoryJSON{Format: memoryFormat, Groups: m.groups})
}

// UnmarshalJSON replaces the store's data by data, a form MarshalJSON returned (what
// past its end in it is forgotten at the next exchange). It returns an error naming what
// is wrong when data is not such a form, and then leaves the store unchanged. Safe for
// concurrent use.
func (m *MemoryStore) UnmarshalJSON(data []byte) error {
	var in memoryJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return fmt.Errorf("fleet: memory store data: %w", err)
	}
	if in.Format != memoryFormat {
		return fmt.Errorf("fleet: memory store data of format %d: want format %d", in.Format, memoryFormat)
	}
	for name, g := range in.Groups {
		if g == nil {
			delete(in.Groups, name)
			continue
		}
		g.complete()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.groups = in.Groups
	return nil
}

// complete gives g the maps a decoded form may lack (JSON null), and drops null entries,
// so that an exchange finds g as the store made it.
func (g *memoryGroup) complete() {
	g.Replicas = made(g.Replicas)
	g.Seen = made(g.Seen)
	g.Keys = made(g.Keys)
	for r, s := range g.Seen {
		if s == nil {
			delete(g.Seen, r)
			continue
		}
		s.Counts = made(s.Counts)
	}
	for name, k := range g.Keys {
		if k == nil {
			delete(g.Keys, name)
			continue
		}
		k.Buckets, k.Grants = made(k.Buckets), made(k.Grants)
		if k.Rate.Quotas != nil || k.Rate.Demands != nil {
			k.Rate.Quotas, k.Rate.Demands = made(k.Rate.Quotas), made(k.Rate.Demands)
		}
	}
}

// made returns m, or an empty map when m is nil.
func made[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return make(map[K]V)
	}
	return m
}
