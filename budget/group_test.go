package budget

import (
	"errors"
	"strings"
	"testing"

	"github.com/retrykit/retry"
)

// TestGroupOneBudgetPerKey: a destination's failures drain its own budget only; the group
// keeps MaxKeys budgets and a forgotten destination starts full (issue 17 item 7).
func TestGroupOneBudgetPerKey(t *testing.T) {
	g, err := NewGroup(GroupConfig{TokenBucket: &TokenBucketConfig{MaxTokens: 4, TokenRatio: 1}, MaxKeys: 2})
	if err != nil {
		t.Fatal(err)
	}
	sick := g.Budget("http://sick.test:80")
	if g.Budget("http://sick.test:80") != sick {
		t.Fatal("Get does not keep one budget per key")
	}
	for range 2 {
		sick.Done(false, retry.ResultFailure)
	}
	healthy := g.Budget("http://healthy.test:80")
	if sick.AllowRetry() || !healthy.AllowRetry() {
		t.Fatalf("sick allows %v, healthy allows %v; want false, true", sick.AllowRetry(), healthy.AllowRetry())
	}
	if got := sick.(*TokenBucket).Tokens(); got != 2 {
		t.Errorf("sick has %v tokens, want 2", got)
	}
	g.Budget("http://third.test:80") // forgets sick, the least recently used
	if g.Len() != 2 {
		t.Errorf("Len = %d, want 2", g.Len())
	}
	if again := g.Budget("http://sick.test:80"); again == sick || again.(*TokenBucket).Tokens() != 4 {
		t.Error("a forgotten destination does not start with a full budget")
	}
}

// TestGroupZeroConfigIsRatio: the zero config gives every destination a Ratio with the
// defaults: 10 retries (the 1/s floor over 10 s) and no more without traffic.
func TestGroupZeroConfigIsRatio(t *testing.T) {
	g, err := NewGroup(GroupConfig{})
	if err != nil {
		t.Fatal(err)
	}
	b, ok := g.Budget("k").(*Ratio)
	if !ok {
		t.Fatalf("budget is %T, want *Ratio", g.Budget("k"))
	}
	allowed := 0
	for range 20 {
		if b.AllowRetry() {
			allowed++
		}
	}
	if allowed != 10 {
		t.Errorf("%d retries allowed, want 10", allowed)
	}
}

func TestNewGroupRejects(t *testing.T) {
	for _, c := range []struct {
		cfg  GroupConfig
		want string
	}{
		{GroupConfig{MaxKeys: -1}, "MaxKeys -1 out of range"},
		{GroupConfig{Ratio: RatioConfig{Ratio: 2}}, "Ratio 2 out of range"},
		{GroupConfig{TokenBucket: &TokenBucketConfig{MaxTokens: 5000}}, "MaxTokens 5000 out of range"},
		{GroupConfig{Ratio: RatioConfig{Ratio: 0.2}, TokenBucket: &TokenBucketConfig{}}, "both Ratio"},
	} {
		g, err := NewGroup(c.cfg)
		if g != nil || !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewGroup(%+v) = %v, %v; want an ErrInvalidConfig naming %q", c.cfg, g, err, c.want)
		}
	}
}
