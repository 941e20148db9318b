package weakmap

import (
	"runtime"
	"sync"
	"testing"
)

type object struct{ _ [8]int }

type value struct{ _ int }

func count(m *Map[object, value]) int {
	n := 0
	m.m.Range(func(any, any) bool { n++; return true })
	return n
}

// One value per object, made once however many goroutines ask at once; none for an object
// that only looked; a copy of an object is another object; package variables work.
func TestMapOneValuePerObject(t *testing.T) {
	made := 0
	var mu sync.Mutex
	m := &Map[object, value]{New: func(*object) *value { mu.Lock(); made++; mu.Unlock(); return new(value) }}
	a := new(object)
	if m.Get(a, false) != nil {
		t.Fatal("a value before any was made")
	}
	var wg sync.WaitGroup
	got := make([]*value, 64)
	for i := range got {
		wg.Go(func() { got[i] = m.Get(a, true) })
	}
	wg.Wait()
	for _, v := range got {
		if v != got[0] {
			t.Fatal("two values for one object")
		}
	}
	copied := *a
	if m.Get(&copied, true) == got[0] {
		t.Error("a copy shares its original's value")
	}
	if v := m.Get(&global, true); v == nil || m.Get(&global, false) != v {
		t.Error("a package variable has no value of its own")
	}
}

var global object

// An object's value goes when the object is collected.
func TestMapDropsCollectedObjects(t *testing.T) {
	m := &Map[object, value]{New: func(*object) *value { return new(value) }}
	for range 100 {
		m.Get(new(object), true)
	}
	keep := new(object)
	m.Get(keep, true)
	for i := 0; i < 1000 && count(m) > 1; i++ { // cleanups run on a goroutine of their own
		runtime.GC()
		runtime.Gosched()
	}
	if n := count(m); n != 1 {
		t.Errorf("%d values left, want the 1 of the object still in use", n)
	}
	runtime.KeepAlive(keep)
}

// An object looked up again finds its value in the cache: no allocation, no weak pointer
// made (issue 34: retryhttp looks its Transport up once a request).
func TestMapLookupOfAnObjectSeenAllocatesNothing(t *testing.T) {
	m := &Map[object, value]{New: func(*object) *value { return new(value) }}
	a := new(object)
	v := m.Get(a, true)
	if n := testing.AllocsPerRun(100, func() {
		if m.Get(a, true) != v {
			t.Fatal("another value")
		}
	}); n != 0 {
		t.Errorf("%v allocations a lookup, want 0", n)
	}
	runtime.KeepAlive(a)
}

// Objects that share a slot of the cache, and an object whose slot another took, keep their
// own values.
func TestMapCacheCollisions(t *testing.T) {
	m := &Map[object, value]{New: func(*object) *value { return new(value) }}
	objects := make([]*object, 4*cacheSlots)
	values := make([]*value, len(objects))
	for i := range objects {
		objects[i] = new(object)
		values[i] = m.Get(objects[i], true)
	}
	for round := range 2 {
		for i, o := range objects {
			if v := m.Get(o, false); v != values[i] {
				t.Fatalf("round %d: object %d found another value", round, i)
			}
		}
	}
}
