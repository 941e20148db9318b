// Package weakmap keeps a value for each live object, keyed by a weak pointer to it: the
// default retry budget of each retry.Policy value, the default budgets and rate gates of each
// retryhttp.Transport. An entry goes when its object is collected, so a program that makes
// objects by the million keeps only the values of those still in use.
package weakmap

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"
)

// Map holds a *V for each *K that asked for one. The zero Map is not usable: set New.
// Safe for concurrent use.
//
// A lookup of an object seen lately costs a few loads: a small cache of recent objects sits
// in front of the table, since making a weak pointer takes a lock of the runtime's, and the
// loops of a busy program look their Policy or Transport up once a call.
type Map[K, V any] struct {
	// New makes the value of an object that has none, from the object. It may be called
	// more than once for one object when goroutines race; one value wins.
	New func(*K) *V

	m     sync.Map // weak.Pointer[K] → *V
	cache [cacheSlots]atomic.Pointer[entry[K, V]]
}

// cacheSlots is the size of a Map's cache of recent objects.
const cacheSlots = 64

// entry is one object of the cache, and its value; both weak, so that the cache keeps
// neither alive.
type entry[K, V any] struct {
	key   weak.Pointer[K]
	value weak.Pointer[V]
}

// Get returns the value of *k, making it with New when create is true and it has none; nil
// when it has none and create is false. k may point to the inside of an object (a field),
// or to a package variable, whose value is never dropped.
func (m *Map[K, V]) Get(k *K, create bool) *V {
	slot := &m.cache[uintptr(unsafe.Pointer(k))/8%cacheSlots]
	if e := slot.Load(); e != nil && e.key.Value() == k {
		if v := e.value.Value(); v != nil {
			return v
		}
	}
	key := weak.Make(k)
	var v *V
	if found, ok := m.m.Load(key); ok {
		v = found.(*V)
	} else {
		if !create {
			return nil
		}
		v = m.New(k)
		if prev, loaded := m.m.LoadOrStore(key, v); loaded {
			v = prev.(*V)
		} else {
			runtime.AddCleanup(k, m.drop, key)
		}
	}
	slot.Store(&entry[K, V]{key: key, value: weak.Make(v)})
	return v
}

// drop removes the value of a collected object.
func (m *Map[K, V]) drop(key weak.Pointer[K]) { m.m.Delete(key) }
