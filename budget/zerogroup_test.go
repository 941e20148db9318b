package budget

import "testing"

// A zero Group, like the zero Breaker, works with the zero GroupConfig's defaults rather
// than panicking on its first Budget call (house rule: no panic on zero inputs).
func TestZeroGroupUsesDefaults(t *testing.T) {
	var g Group
	b := g.Budget("https://a.example:443")
	r, ok := b.(*Ratio)
	if !ok {
		t.Fatalf("zero Group's budget is %T, want *Ratio (the zero GroupConfig's)", b)
	}
	if again := g.Budget("https://a.example:443"); again != b {
		t.Errorf("second Budget of the same key = %p, want the same budget %p", again, r)
	}
	g.Budget("https://b.example:443")
	if n := g.Len(); n != 2 {
		t.Errorf("Len = %d, want 2", n)
	}
}
