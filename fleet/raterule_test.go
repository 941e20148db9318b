package fleet

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// unitsOf is ratelimit.Part's count of n units: ⌈n·To⌉ − ⌈n·From⌉.
func unitsOf(from, to float64, n int64) int64 {
	return int64(math.Ceil(float64(n)*to) - math.Ceil(float64(n)*from))
}

// Issue 33: the replicas' parts tile [0, 1) in the order of their names, each weighed by its
// demand + 1, so that whatever is left is shared out exactly, no unit twice; with fewer
// replicas than MinReplicas they leave the missing ones' parts unused; a negative demand
// counts as none.
func TestPropertyRatePartsTile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "replicas")
		demands := make(map[string]int64, n)
		for i := range n {
			demands[fmt.Sprintf("r%03d", i)] = rapid.Int64Range(-5, 10_000).Draw(t, "demand")
		}
		minReplicas := rapid.IntRange(0, 60).Draw(t, "min replicas")
		left := rapid.Int64Range(0, 1_000_000).Draw(t, "left")
		names := slices.Sorted(func(yield func(string) bool) {
			for name := range demands {
				if !yield(name) {
					return
				}
			}
		})
		var total int64
		to := 0.0
		for i, name := range names {
			p := RatePart(name, demands, minReplicas)
			if p.From != to || !(p.To > p.From) {
				t.Fatalf("replica %d: part %+v after %v", i, p, to)
			}
			to = p.To
			total += unitsOf(p.From, p.To, left)
		}
		switch {
		case minReplicas <= n && (to != 1 || total != left):
			t.Fatalf("%d replicas share %d left as %d, up to %v", n, left, total, to)
		case minReplicas > n && (to >= 1 || total > left):
			t.Fatalf("%d replicas of at least %d share %d left as %d, up to %v", n, minReplicas, left, total, to)
		}
	})
}

// Issue 33: a replica's part follows its demand: one asked for 30 attempts beside one asked
// for none has 31/32 of the quotas; one not in the table counts as asked for none; below
// MinReplicas, each missing replica weighs the average of those present.
func TestRatePartWeighsDemand(t *testing.T) {
	demands := map[string]int64{"a": 30, "b": 0}
	if p := RatePart("a", demands, 1); p.From != 0 || p.To != 31.0/32 {
		t.Errorf("a: %+v, want [0, 31/32)", p)
	}
	if p := RatePart("b", demands, 1); p.From != 31.0/32 || p.To != 1 {
		t.Errorf("b: %+v, want [31/32, 1)", p)
	}
	if p := RatePart("c", demands, 1); p.From != 32.0/33 || p.To != 1 {
		t.Errorf("c, absent: %+v, want [32/33, 1)", p)
	}
	if p := RatePart("a", map[string]int64{"a": 0}, 4); p.From != 0 || p.To != 0.25 {
		t.Errorf("a alone, 4 replicas at least: %+v, want [0, 1/4)", p)
	}
	if p := RatePart("b", map[string]int64{"a": 9, "b": 29}, 4); p.From != 10.0/80 || p.To != 40.0/80 {
		t.Errorf("b beside a, 4 replicas at least: %+v, want [10/80, 40/80): the 2 missing weigh 20 each", p)
	}
}

// Issue 33: what the server said last wins in the fleet's view of a quota, whichever replica
// read it: a lower remaining in the same window (and its later reset), the next window; a
// view of a window that has passed, or of none, changes no current window; the limit and
// window are the largest told.
func TestMergeQuota(t *testing.T) {
	const s = time.Second
	cur := func(limit, remaining int64, reset time.Duration) Quota {
		return Quota{Name: "requests", Limit: limit, Window: s, Remaining: remaining, ResetIn: reset}
	}
	none := Quota{Name: "requests", Limit: 50, Window: s, Remaining: -1}
	for _, tc := range []struct {
		name             string
		stored, in, want Quota
	}{
		{"nothing stored", Quota{}, cur(50, 7, 400*time.Millisecond), cur(50, 7, 400*time.Millisecond)},
		{"a lower remaining, same window", cur(50, 7, 400*time.Millisecond), cur(50, 3, 402*time.Millisecond), cur(50, 3, 402*time.Millisecond)},
		{"a higher remaining, same window: the later reset only", cur(50, 3, 400*time.Millisecond), cur(50, 9, 405*time.Millisecond), cur(50, 3, 405*time.Millisecond)},
		{"the next window", cur(50, 0, 100*time.Millisecond), cur(50, 49, 1100*time.Millisecond), cur(50, 49, 1100*time.Millisecond)},
		{"a window that has passed", cur(50, 49, 1100*time.Millisecond), cur(50, 0, 100*time.Millisecond), cur(50, 49, 1100*time.Millisecond)},
		{"no current window told", cur(50, 3, 400*time.Millisecond), none, cur(50, 3, 400*time.Millisecond)},
		{"no current window stored", none, cur(50, 3, 400*time.Millisecond), cur(50, 3, 400*time.Millisecond)},
		{"neither", none, none, none},
		{"the larger limit: an estimate beside a said one", cur(8, 7, 400*time.Millisecond), cur(50, 6, 400*time.Millisecond), cur(50, 6, 400*time.Millisecond)},
	} {
		if got := MergeQuota(tc.stored, tc.in); got != tc.want {
			t.Errorf("%s: MergeQuota(%+v, %+v) = %+v, want %+v", tc.name, tc.stored, tc.in, got, tc.want)
		}
	}
}

// Issue 33: merging a view twice changes nothing (a re-sent exchange), and two views of the
// same window merge to the same view in either order (whichever replica's exchange comes
// first).
func TestPropertyMergeQuota(t *testing.T) {
	view := func(t *rapid.T, label string) Quota {
		q := Quota{Name: "tokens", Limit: rapid.Int64Range(0, 1000).Draw(t, label+" limit"),
			Window: time.Duration(rapid.Int64Range(0, 3).Draw(t, label+" window")) * time.Second, Remaining: -1}
		if rapid.Bool().Draw(t, label+" current") {
			q.Remaining = rapid.Int64Range(0, 1000).Draw(t, label+" remaining")
			q.ResetIn = time.Duration(rapid.Int64Range(1, 3000).Draw(t, label+" reset ms")) * time.Millisecond
		}
		return q
	}
	rapid.Check(t, func(t *rapid.T) {
		a, b := view(t, "a"), view(t, "b")
		ab := MergeQuota(a, b)
		if again := MergeQuota(ab, b); again != ab {
			t.Fatalf("merged twice: %+v, then %+v", ab, again)
		}
		if ab.Limit != max(a.Limit, b.Limit) || ab.Window != max(a.Window, b.Window) {
			t.Fatalf("limit and window %+v from %+v and %+v", ab, a, b)
		}
		half := ab.Window / 2
		sameWindow := a.current() && b.current() && (half == 0 || (a.ResetIn-b.ResetIn < half && b.ResetIn-a.ResetIn < half))
		if ba := MergeQuota(b, a); sameWindow && ba != ab {
			t.Fatalf("same window, merged in either order: %+v and %+v", ab, ba)
		}
	})
}
