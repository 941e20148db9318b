package hedge

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"pgregory.net/rapid"
)

var _ retry.Hedger = (*Hedger)(nil)

// TestBucketBounds: every latency lies below its bucket's bound and at or above the bound
// of the bucket before, and a bucket spans at most 1/16 of its values.
func TestBucketBounds(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		d := time.Duration(rapid.Int64Range(0, int64(40*time.Hour)).Draw(rt, "latency"))
		i := bucketOf(d)
		if i < nBuckets-1 && d >= upperBound(i) {
			rt.Fatalf("latency %v in bucket %d, whose bound is %v", d, i, upperBound(i))
		}
		if i > 0 && d.Truncate(time.Microsecond) < upperBound(i-1) {
			rt.Fatalf("latency %v in bucket %d, below the bound %v of the bucket before", d, i, upperBound(i-1))
		}
		if lo := upperBound(i - 1); i > sub && i < nBuckets-1 && float64(upperBound(i)-lo) > float64(lo)/16*1.0001 {
			rt.Fatalf("bucket %d spans [%v, %v): more than 1/16", i, lo, upperBound(i))
		}
	})
}

// TestPercentile: the window's percentile is within a bucket (6 %) above the exact one.
func TestPercentile(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 3000).Draw(rt, "n")
		q := rapid.Float64Range(0.5, 0.999).Draw(rt, "q")
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 0))
		w := &latencyWindow{genSize: 1000}
		var all []time.Duration
		for range n {
			d := time.Duration(r.ExpFloat64() * float64(5*time.Millisecond))
			w.add(d)
			all = append(all, d)
		}
		kept := all[max(0, len(all)-w.len()):]
		slices.Sort(kept)
		exact := kept[max(0, int(float64(len(kept))*q+0.999999)-1)]
		got, ok := w.percentile(q)
		if !ok || got <= exact.Truncate(time.Microsecond) || float64(got) > float64(exact)*1.07+float64(time.Microsecond) {
			rt.Fatalf("p%v of %d latencies: %v, exact %v", q*100, len(kept), got, exact)
		}
	})
}

// TestWindowForgets: the window reads between ¾ × Window and Window latencies.
func TestWindowForgets(t *testing.T) {
	w := &latencyWindow{genSize: 250}
	for i := range 5000 {
		w.add(time.Millisecond)
		if n := w.len(); n > 1000 || (i >= 1000 && n < 750) {
			t.Fatalf("after %d latencies the window holds %d", i+1, n)
		}
	}
}

// TestAdaptiveDelay: the delay is MaxDelay until the window can tell the percentile, then
// the percentile, then follows a shift of the latencies within a window.
func TestAdaptiveDelay(t *testing.T) {
	h, err := New(Config{Percentile: 0.9, MaxDelay: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d, n := h.Attempt(); d != 500*time.Millisecond || n != 1 {
		t.Fatalf("a fresh Hedger: delay %v, %d hedges; want the cap 500ms, 1", d, n)
	}
	feed := func(scale time.Duration, n int) {
		for i := range n {
			h.Latency(scale*time.Duration(i%100+1)/100, false) // uniform over (0, scale]
		}
	}
	feed(10*time.Millisecond, 64)
	if d := h.Delay(); d != 500*time.Millisecond {
		t.Errorf("after 64 latencies (fewer than 100 for p90): %v, want the cap", d)
	}
	feed(10*time.Millisecond, 2000)
	if d := h.Delay(); d < 9*time.Millisecond || d > 9600*time.Microsecond {
		t.Errorf("p90 of latencies uniform to 10ms: %v, want 9ms and a bucket", d)
	}
	feed(100*time.Millisecond, 2000)
	if d := h.Delay(); d < 90*time.Millisecond || d > 96*time.Millisecond {
		t.Errorf("after a window of latencies ten times slower: %v, want 90ms and a bucket", d)
	}
	feed(time.Second, 2000)
	if d := h.Delay(); d != 500*time.Millisecond {
		t.Errorf("latencies above the cap: %v, want the cap", d)
	}
	h.Latency(time.Microsecond, false)
	for range 4000 {
		h.Latency(0, false)
	}
	if d := h.Delay(); d != DefaultMinDelay {
		t.Errorf("latencies of 0: %v, want the floor %v", d, DefaultMinDelay)
	}
}

// TestFixedDelay: a fixed delay ignores latencies.
func TestFixedDelay(t *testing.T) {
	h, err := New(Config{Delay: 30 * time.Millisecond, MaxHedges: 2})
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		h.Latency(time.Second, false)
	}
	if d, n := h.Attempt(); d != 30*time.Millisecond || n != 2 {
		t.Errorf("delay %v, %d hedges; want 30ms, 2", d, n)
	}
}

// TestBudgetBound: whatever the order of attempts and hedges asked for, hedges stay
// within Budget × attempts + the burst, and none is refused while a token is there.
func TestBudgetBound(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		share := rapid.SampledFrom([]float64{0.001, 0.02, 0.1, 0.5, 1}).Draw(rt, "budget")
		h, err := New(Config{Delay: time.Millisecond, Budget: share})
		if err != nil {
			rt.Fatal(err)
		}
		attempts, hedges := 0, 0
		for _, hedge := range rapid.SliceOfN(rapid.Bool(), 0, 5000).Draw(rt, "steps") {
			if !hedge {
				h.Attempt()
				attempts++
				continue
			}
			if h.AllowHedge() {
				h.Hedged()
				hedges++
			}
		}
		burst := max(1, share*budgetBurst)
		if float64(hedges) > share*float64(attempts)+burst+1e-9 {
			rt.Fatalf("%d hedges for %d attempts under a budget of %v (burst %v)", hedges, attempts, share, burst)
		}
	})
}

// TestNoBudget: retry.None removes the hedge budget.
func TestNoBudget(t *testing.T) {
	h, err := New(Config{Delay: time.Millisecond, Budget: retry.None})
	if err != nil {
		t.Fatal(err)
	}
	for range 10_000 {
		if !h.AllowHedge() {
			t.Fatal("a Hedger without a budget refused a hedge")
		}
		h.Hedged()
	}
}

// TestConfigErrors: every bad value is named, with what is allowed.
func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Delay: -1}, "hedge: invalid config: Delay -1ns is negative: use a positive duration for a fixed delay, or 0 for an adaptive one"},
		{Config{Delay: time.Millisecond, Percentile: 0.9}, "hedge: invalid config: Delay 1ms is fixed: Percentile, MinDelay, MaxDelay and Window set an adaptive delay; set one or the other"},
		{Config{Percentile: 1}, "hedge: invalid config: Percentile 1 out of range: must be in (0, 1), such as 0.98, or 0 for the default"},
		{Config{MinDelay: -time.Second}, "hedge: invalid config: MinDelay -1s is negative: use a positive duration, or 0 for the default 1ms"},
		{Config{MaxDelay: -time.Second}, "hedge: invalid config: MaxDelay -1s is negative: use a positive duration, or 0 for the default 1s"},
		{Config{MinDelay: 2 * time.Second}, "hedge: invalid config: MaxDelay 1s is below MinDelay 2s: the cap must be at least the floor"},
		{Config{MaxHedges: 5}, "hedge: invalid config: MaxHedges 5 out of range: must be from 1 to 4, or 0 for 1"},
		{Config{Budget: 1.5}, "hedge: invalid config: Budget 1.5 out of range: must be in (0, 1], 0 for the default 0.02, or retry.None"},
		{Config{Window: 10}, "hedge: invalid config: Window 10 out of range: must be from 100 to 100000 latencies, or 0 for the default 2000"},
	} {
		_, err := New(c.cfg)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("New(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
	if _, err := NewGroup(GroupConfig{MaxKeys: -1}); err == nil || !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("NewGroup(MaxKeys -1) = %v, want an error", err)
	}
}

// TestDefaults: the zero Config's percentile is 1 − ¾ × 2 %, and it needs 667 latencies.
func TestDefaults(t *testing.T) {
	var c Config
	if p, n := c.percentile(), c.minSamples(); p != 0.985 || n != 667 {
		t.Errorf("percentile %v after %d latencies, want 0.985 after 667", p, n)
	}
	c.Budget = retry.None
	if p := c.percentile(); p != DefaultPercentileWithoutBudget {
		t.Errorf("without a budget: percentile %v, want %v", p, DefaultPercentileWithoutBudget)
	}
}

// TestGroup: a Hedger per key, bounded; a nil Group gives none; the zero Group works.
func TestGroup(t *testing.T) {
	g, err := NewGroup(GroupConfig{MaxKeys: 2, Hedge: Config{Delay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	a := g.Hedger("a")
	if g.Hedger("a") != a || g.Hedger("b") == a {
		t.Error("a Group does not keep one Hedger per key")
	}
	g.Hedger("c")
	if g.Len() != 2 || g.Hedger("a") == a {
		t.Errorf("a Group of 2 keys holds %d and kept its least recently used", g.Len())
	}
	var none *Group
	if none.Hedger("a") != nil {
		t.Error("a nil Group gave a Hedger")
	}
	var zero Group
	if h, ok := zero.Hedger("a").(*Hedger); !ok || h.Delay() != DefaultMaxDelay {
		t.Errorf("the zero Group's Hedger: %v", zero.Hedger("a"))
	}
}
