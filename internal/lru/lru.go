// Package lru is a bounded map that forgets its least recently used entry: the destination
// tables of breaker.Group, budget.Group and package fleet's groups, one breaker or one budget
// per host.
package lru

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// Cache keeps at most Max values by key. The zero Cache is not usable; set Max (positive)
// and New before the first Get. Safe for concurrent use.
type Cache[V any] struct {
	// Max is how many values the cache keeps; creating one more forgets the least recently
	// used.
	Max int
	// New creates the value of a key Get has not seen (or has forgotten). It is called with
	// the cache's lock held, so it must not use the cache.
	New func(key string) V

	mu   sync.Mutex
	keys map[string]*list.Element // of *entry[V]
	lru  list.List                // most recently used first
	// last is the most recently used entry, which Get of its key returns without the lock:
	// a program that sends to one destination looks it up without contention. It is never
	// the least recently used while another entry exists, so it is never forgotten while last.
	last atomic.Pointer[entry[V]]
}

type entry[V any] struct {
	key string
	v   V
}

// Get returns the value of key, creating it with New when the cache has none, and marks it
// the most recently used.
func (c *Cache[V]) Get(key string) V {
	if e := c.last.Load(); e != nil && e.key == key {
		return e.v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.keys[key]; ok {
		c.lru.MoveToFront(e)
		en := e.Value.(*entry[V])
		c.last.Store(en)
		return en.v
	}
	if c.keys == nil {
		c.keys = make(map[string]*list.Element)
	}
	if c.lru.Len() >= c.Max {
		oldest := c.lru.Back()
		delete(c.keys, oldest.Value.(*entry[V]).key)
		c.lru.Remove(oldest)
	}
	v := c.New(key)
	en := &entry[V]{key: key, v: v}
	c.keys[key] = c.lru.PushFront(en)
	c.last.Store(en)
	return v
}

// Len returns how many values the cache keeps.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Range calls f for every value, the most recently used first, with the cache's lock held:
// f must not use the cache.
func (c *Cache[V]) Range(f func(key string, v V)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.lru.Front(); e != nil; e = e.Next() {
		en := e.Value.(*entry[V])
		f(en.key, en.v)
	}
}

// AddIfRoom creates the value of key with New when the cache has none and has room for one
// more without forgetting another, and reports whether it did. It leaves the order of use
// as it is: the new value counts as the least recently used.
func (c *Cache[V]) AddIfRoom(key string) (v V, added bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.keys[key]; ok || c.lru.Len() >= c.Max {
		return v, false
	}
	if c.keys == nil {
		c.keys = make(map[string]*list.Element)
	}
	v = c.New(key)
	c.keys[key] = c.lru.PushBack(&entry[V]{key: key, v: v})
	return v, true
}
