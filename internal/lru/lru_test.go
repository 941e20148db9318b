package lru

import (
	"fmt"
	"sync"
	"testing"
)

// TestCacheKeepsMaxForgetsLeastRecentlyUsed: Get creates once per key, keeps Max values, and
// forgets the least recently used; a forgotten key seen again is created anew.
func TestCacheKeepsMaxForgetsLeastRecentlyUsed(t *testing.T) {
	var created []string
	c := &Cache[string]{Max: 2, New: func(key string) string {
		created = append(created, key)
		return fmt.Sprintf("%s#%d", key, len(created))
	}}
	steps := []struct{ key, want string }{
		{"a", "a#1"}, {"b", "b#2"}, {"a", "a#1"}, // a used last: b is the oldest
		{"c", "c#3"},               // forgets b
		{"a", "a#1"}, {"b", "b#4"}, // b anew, forgets c
		{"c", "c#5"}, // forgets a
	}
	for i, s := range steps {
		if got := c.Get(s.key); got != s.want {
			t.Fatalf("step %d: Get(%q) = %q, want %q", i, s.key, got, s.want)
		}
	}
	if c.Len() != 2 {
		t.Errorf("Len = %d, want 2", c.Len())
	}
	if want := "[a b c b c]"; fmt.Sprint(created) != want {
		t.Errorf("created %v, want %s", created, want)
	}
}

// TestCacheConcurrentGetCreatesOnce: goroutines asking for one key get one value.
func TestCacheConcurrentGetCreatesOnce(t *testing.T) {
	n := 0
	c := &Cache[*int]{Max: 4, New: func(string) *int { n++; return new(int) }}
	var wg sync.WaitGroup
	got := make([]*int, 8)
	for i := range got {
		wg.Go(func() { got[i] = c.Get("k") })
	}
	wg.Wait()
	for i, p := range got {
		if p != got[0] {
			t.Fatalf("goroutine %d got another value", i)
		}
	}
	if n != 1 {
		t.Errorf("New called %d times, want 1", n)
	}
}

// TestRangeAndAddIfRoom: Range sees every value, the most recently used first; AddIfRoom
// creates a value only for a new key while there is room, as the least recently used.
func TestRangeAndAddIfRoom(t *testing.T) {
	c := &Cache[string]{Max: 3, New: func(key string) string { return key + "!" }}
	c.Get("a")
	c.Get("b")
	if v, added := c.AddIfRoom("a"); added {
		t.Errorf("AddIfRoom(a) added %q for a key the cache has", v)
	}
	if v, added := c.AddIfRoom("c"); !added || v != "c!" {
		t.Errorf("AddIfRoom(c) = %q, %v; want c!, true", v, added)
	}
	if _, added := c.AddIfRoom("d"); added {
		t.Error("AddIfRoom(d) added beyond Max")
	}
	var seen []string
	c.Range(func(key, v string) { seen = append(seen, key+"="+v) })
	if want := "[b=b! a=a! c=c!]"; fmt.Sprint(seen) != want {
		t.Errorf("Range saw %v, want %s", seen, want)
	}
	c.Get("d") // forgets c, the least recently used
	seen = seen[:0]
	c.Range(func(key, _ string) { seen = append(seen, key) })
	if want := "[d b a]"; fmt.Sprint(seen) != want {
		t.Errorf("after Get(d): %v, want %s", seen, want)
	}
}
