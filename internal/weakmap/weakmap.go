// Package weakmap keeps a value for each live object, keyed by a weak pointer to it: the
// default retry budget of each retry.Policy value, the default budgets of each
// retryhttp.Transport. An entry goes when its object is collected, so a program that makes
// objects by the million keeps only the values of those still in use.
package weakmap

import (
	"runtime"
	"sync"
	"weak"
)

// Map holds a *V for each *K that asked for one. The zero Map is not usable: set New.
// Safe for concurrent use.
type Map[K, V any] struct {
	// New makes the value of an object that has none, from the object. It may be called
	// more than once for one object when goroutines race; one value wins.
	New func(*K) *V

	m sync.Map // weak.Pointer[K] → *V
}

// Get returns the value of *k, making it with New when create is true and it has none; nil
// when it has none and create is false. k may point to the inside of an object (a field),
// or to a package variable, whose value is never dropped.
func (m *Map[K, V]) Get(k *K, create bool) *V {
	key := weak.Make(k)
	if v, ok := m.m.Load(key); ok {
		return v.(*V)
	}
	if !create {
		return nil
	}
	v := m.New(k)
	if prev, loaded := m.m.LoadOrStore(key, v); loaded {
		return prev.(*V)
	}
	runtime.AddCleanup(k, m.drop, key)
	return v
}

// drop removes the value of a collected object.
func (m *Map[K, V]) drop(key weak.Pointer[K]) { m.m.Delete(key) }
