package ratelimit

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// One gate per destination key, made on demand: a limit read from one host does not slow
// another; the group keeps at most MaxKeys, forgetting the least recently used.
func TestGroupGatePerKey(t *testing.T) {
	g, err := NewGroup(GroupConfig{MaxKeys: 2})
	if err != nil {
		t.Fatal(err)
	}
	openai := g.Gate("https://api.openai.com:443")
	if g.Gate("https://api.openai.com:443") != openai {
		t.Error("a second lookup of a key gave another gate")
	}
	openai.Observe(ms(0), []Reading{requests(10, 0, time.Second)})
	if at, _ := g.RateGate("https://api.openai.com:443").Reserve(ms(0), ms(0)); !at.Equal(ms(1000)) {
		t.Errorf("the limited host: %v, want 1000 ms", at.Sub(t0))
	}
	if at, tok := g.RateGate("https://api.anthropic.com:443").Reserve(ms(0), ms(0)); !at.Equal(ms(0)) || tok != 0 {
		t.Errorf("another host: %v, %d; want the free path", at.Sub(t0), tok)
	}
	g.Gate("https://c.example:443") // forgets openai's, the least recently used
	if g.Len() != 2 {
		t.Errorf("Len = %d, want 2", g.Len())
	}
	if g.Gate("https://api.openai.com:443") == openai {
		t.Error("the least recently used gate was kept beyond MaxKeys")
	}
}

// The zero Group works with the zero GroupConfig's defaults, and a nil *Group gives no gate
// (a nil retry.RateGate, not a nil *Gate in an interface).
func TestZeroAndNilGroup(t *testing.T) {
	var g Group
	if first, again := g.Gate("k"), g.Gate("k"); first != again || g.Len() != 1 {
		t.Error("zero Group: no gate kept per key")
	}
	var none *Group
	if none.RateGate("k") != nil {
		t.Error("nil Group: RateGate is not nil")
	}
	probing, _ := NewGroup(GroupConfig{Gate: Config{ProbeWait: time.Second}})
	if _, tok := probing.Gate("k").Reserve(ms(0), ms(0)); tok == 0 {
		t.Error("the group's Config did not reach its gates: no probe")
	}
}

// Concurrent lookups of one key share one gate; of many keys, stay within MaxKeys.
func TestGroupConcurrentLookups(t *testing.T) {
	g, _ := NewGroup(GroupConfig{MaxKeys: 8})
	var wg sync.WaitGroup
	gates := make([]*Gate, 16)
	for i := range gates {
		wg.Go(func() { gates[i] = g.Gate("shared") })
	}
	wg.Wait()
	for _, gate := range gates {
		if gate != gates[0] {
			t.Fatal("two gates for one key")
		}
	}
	for i := range 16 {
		wg.Go(func() {
			for k := range 20 {
				g.Gate(fmt.Sprintf("host-%d-%d", i, k)).Reserve(ms(0), ms(0))
			}
		})
	}
	wg.Wait()
	if g.Len() != 8 {
		t.Errorf("Len = %d, want 8", g.Len())
	}
}
