package breaker

import "testing"

// A zero Group, like the zero Breaker, keeps DefaultMaxKeys breakers of the zero Config
// rather than panicking on its first Get (house rule: no panic on zero inputs).
func TestZeroGroupUsesDefaults(t *testing.T) {
	var g Group
	b := g.Get("https://a.example:443")
	if b == nil || b.State() != StateClosed {
		t.Fatalf("zero Group's Get = %v, want a CLOSED breaker", b)
	}
	if again := g.Breaker("https://a.example:443"); again != b {
		t.Errorf("Breaker of the same key = %p, want the same breaker %p", again, b)
	}
	g.Get("https://b.example:443")
	if n := g.Len(); n != 2 {
		t.Errorf("Len = %d, want 2", n)
	}
}
