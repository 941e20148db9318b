package ratelimit

import (
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/retrykit/retry"
)

// Issue 33: a gate's snapshot is what it read, with the absolute reset, its hold, and the
// reservations pending; a gate that knows nothing shares nothing.
func TestSnapshot(t *testing.T) {
	g := mustGate(t, Config{})
	if views, hold, pending := g.Snapshot(ms(0), nil); len(views) != 0 || !hold.IsZero() || pending != 0 {
		t.Fatalf("an idle gate's snapshot: %v, hold %v, %d pending; want none", views, hold, pending)
	}
	tok := reserveOne(g, ms(0))
	g.Observe(ms(10), []Reading{requests(50, 7, 990*time.Millisecond)})
	g.Done(tok, ms(10), retry.ResultSuccess, 0)
	reserveAll(g, ms(10), 2)
	views, hold, pending := g.Snapshot(ms(20), nil)
	want := QuotaView{Quota: "requests", Limit: 50, Window: time.Second, Remaining: 7, Reset: ms(1000)}
	if len(views) != 1 || views[0] != want || !hold.IsZero() || pending != 2 {
		t.Fatalf("snapshot %+v, hold %v, %d pending; want [%+v], no hold, 2 pending", views, hold, pending, want)
	}
	g.Done(reserveOne(g, ms(20)), ms(30), retry.ResultThrottled, 2*time.Second)
	views, hold, _ = g.Snapshot(ms(1100), views[:0])
	want.Remaining, want.Reset = -1, time.Time{} // the window's reset has passed
	if len(views) != 1 || views[0] != want || !hold.Equal(ms(2030)) {
		t.Fatalf("snapshot %+v, hold %v; want [%+v], hold at 2030 ms", views, hold, want)
	}
}

// reserveOne reserves one attempt at now and returns its token.
func reserveOne(g *Gate, now time.Time) uint64 {
	_, tok := g.Reserve(now, now)
	return tok
}

// Issue 33: what others share is learnt by the readings' rule, fresher wins, and answers none
// of this gate's attempts: a lower remaining in the window counts every attempt in flight
// against it; a higher one changes nothing; a hold from elsewhere holds this gate too.
func TestShareLearnsFresherViews(t *testing.T) {
	g := mustGate(t, Config{})
	g.Observe(ms(0), []Reading{requests(10, 8, time.Second)}) // the window resets at 1000 ms
	_, toks := reserveAll(g, ms(0), 3)                        // 3 in flight, 5 left
	g.Share(ms(5), []QuotaView{{Quota: "requests", Limit: 10, Window: time.Second, Remaining: 9, Reset: ms(1000)}}, time.Time{}, Part{})
	if at, _ := reserveAll(g, ms(5), 6); at[4] != 5 || at[5] < 1000 {
		t.Fatalf("after a staler view: times %v ms, want 5 at once and the sixth after the reset", at)
	}
	g2 := mustGate(t, Config{})
	g2.Observe(ms(0), []Reading{requests(10, 8, time.Second)})
	reserveAll(g2, ms(0), 3)
	// Another replica read 4 left: the 3 in flight here count against those 4.
	g2.Share(ms(5), []QuotaView{{Quota: "requests", Limit: 10, Window: time.Second, Remaining: 4, Reset: ms(1000)}}, time.Time{}, Part{})
	if at, toks := reserveAll(g2, ms(5), 2); at[0] != 5 || at[1] == 5 || at[1] < 1000 && toks[1] != 0 {
		t.Fatalf("after a fresher view: times %v ms, tokens %v; want one at once, the next after the reset or asked to ask again", at, toks)
	}
	// A hold shared from elsewhere holds every later reservation here.
	g2.Share(ms(6), nil, ms(1500), Part{})
	if at, _ := g2.Reserve(ms(6), ms(6)); at.Before(ms(1500)) {
		t.Fatalf("after a shared hold until 1500 ms: reserved at %v", at.Sub(t0))
	}
	for _, tok := range toks {
		g.Cancel(tok, ms(7))
	}
}

// Issue 33: a gate that never read the destination learns its quota from what others share,
// and keeps to its part: of 10 left, the units in [0.3, 0.5) are 2; after the reset, 2 of
// each window's 10, released over its first tenth.
func TestSharePart(t *testing.T) {
	g := mustGate(t, Config{})
	view := QuotaView{Quota: "requests", Limit: 10, Window: time.Second, Remaining: 10, Reset: ms(1000)}
	g.Share(ms(0), []QuotaView{view}, time.Time{}, Part{From: 0.3, To: 0.5})
	at, _ := reserveAll(g, ms(0), 4)
	wantTimes(t, "part [0.3, 0.5) of 10 left, then 2 a window, over its first tenth", at, []int64{0, 0, 1000, 1050})
}

// Issue 33: parts that tile [0, 1), as a store makes them (From and To the running sums of
// whole weights over their total, the first part starting anywhere and wrapping past 1),
// share out exactly what is left, and no part counts more than is left.
func TestPropertyPartsTile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(0, 1_000_000).Draw(t, "left")
		weights := rapid.SliceOfN(rapid.Int64Range(1, 1000), 1, 50).Draw(t, "weights")
		var sum float64
		for _, w := range weights {
			sum += float64(w)
		}
		start := float64(rapid.Int64Range(0, int64(sum)-1).Draw(t, "start"))
		var total int64
		c := start
		for _, w := range weights {
			p := Part{From: c / sum, To: (c + float64(w)) / sum}
			got := p.of(n)
			if got < 0 || got > n {
				t.Fatalf("part %+v of %d: %d", p, n, got)
			}
			total += got
			c += float64(w)
		}
		if total != n {
			t.Fatalf("%d parts of %d add up to %d", len(weights), n, total)
		}
	})
}

// Issue 33: a part is what the gate may still admit of the window, split anew at each
// exchange and for each window it learns of: a fresher reading in the same window, lower
// because another replica sent too, does not split it again (the gate would take its part
// of what the others left), while an exchange's view does (by the parts' tiling), and so
// does a new window read here (its size of it, rounded down: each replica reads its own
// remaining, and their roundings must not add up to more).
func TestSharePartCountsOwnAdmissions(t *testing.T) {
	g := mustGate(t, Config{})
	half := Part{From: 0, To: 0.5}
	view := func(remaining int64, reset time.Time) []QuotaView {
		return []QuotaView{{Quota: "requests", Limit: 10, Window: time.Second, Remaining: remaining, Reset: reset}}
	}
	g.Share(ms(0), view(4, ms(1000)), time.Time{}, half)
	if at, toks := reserveAll(g, ms(0), 3); at[1] != 0 || at[2] < 1000 {
		t.Fatalf("half of 4 left: times %v ms, want 2 at once", at)
	} else {
		for _, tok := range toks[:2] {
			g.Observe(ms(10), []Reading{requests(10, 1, 990*time.Millisecond)})
			g.Done(tok, ms(10), retry.ResultSuccess, 0)
		}
		g.Cancel(toks[2], ms(10))
	}
	if at, tok := g.Reserve(ms(10), ms(10)); at.Before(ms(1000)) {
		t.Fatalf("after a reading of 1 left (another replica sent 2): reserved at %v, want after the reset", at.Sub(t0))
	} else {
		g.Cancel(tok, ms(10))
	}
	g.Share(ms(20), view(1, ms(1000)), time.Time{}, half) // an exchange: the fleet's 1 left, split
	if at, tok := g.Reserve(ms(20), ms(20)); !at.Equal(ms(20)) {
		t.Fatalf("after an exchange with 1 left: reserved at %v, want at once", at.Sub(t0))
	} else {
		_ = tok // in flight
	}
	g.Observe(ms(1010), []Reading{requests(10, 9, 990*time.Millisecond)}) // its answer: the next window
	if at, _ := reserveAll(g, ms(1010), 5); at[3] != 1010 || at[4] < 2000 {
		t.Fatalf("a new window of 9 left, read here: times %v ms, want half of it rounded down (4) at once", at)
	}
}

// Issue 33, more replicas than a window has units: 20 gates of a fleet, each with a
// twentieth of a limit of 10 a second, release between them exactly 10 in each window
// after the reset, each its unit in one of the first two windows (it used to be one a
// window each, at least one: 20 a window, half of them answered 429).
func TestSharePartSmallerThanAUnit(t *testing.T) {
	view := []QuotaView{{Quota: "requests", Limit: 10, Window: time.Second, Remaining: 0, Reset: ms(1000)}}
	windows := map[int64]int{}
	for i := range 20 {
		g := mustGate(t, Config{})
		g.Share(ms(0), view, time.Time{}, Part{From: float64(i) / 20, To: float64(i+1) / 20})
		at, _ := reserveAll(g, ms(0), 1)
		if at[0]%1000 >= 100 {
			t.Errorf("gate %d: released at %d ms, want within a window's first tenth", i, at[0])
		}
		windows[at[0]/1000]++
	}
	if windows[1] != 10 || windows[2] != 10 {
		t.Errorf("releases by window (s): %v, want 10 in each of the two after the reset", windows)
	}
}

// Issue 33: the parts of a fleet, tiling [0, 1), release between them exactly the quota's
// limit in every window of their grids (started at resets read a few milliseconds apart
// but for a unit at a part's edge), and each part its size of it, over any run of windows,
// however small the part, to within the golden ratio turns' discrepancy: 3.1 units over
// up to 200 windows.
func TestPropertyGridCountsTile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		full := rapid.Int64Range(1, 100_000).Draw(t, "limit")
		window := time.Duration(rapid.Int64Range(int64(time.Millisecond), int64(time.Hour)).Draw(t, "window"))
		anchor := t0.Add(time.Duration(rapid.Int64Range(0, int64(24*time.Hour)).Draw(t, "anchor")))
		weights := rapid.SliceOfN(rapid.Int64Range(1, 1000), 1, 60).Draw(t, "weights")
		var sum float64
		for _, w := range weights {
			sum += float64(w)
		}
		c := float64(rapid.Int64Range(0, int64(sum)-1).Draw(t, "start"))
		windows := rapid.Int64Range(1, 200).Draw(t, "windows")
		totals := make([]int64, windows)
		for _, w := range weights {
			part := Part{From: c / sum, To: (c + float64(w)) / sum}
			c += float64(w)
			q := quota{limit: full, window: window, part: part}
			g := q.paceGrid(anchor)
			var got int64
			for k := range windows {
				n := g.count(k)
				totals[k] += n
				got += n
			}
			if want := float64(windows) * float64(full) * part.size(); math.Abs(float64(got)-want) > 3.1 {
				t.Fatalf("part %+v of %d over %d windows: %d units, want %.1f", part, full, windows, got, want)
			}
		}
		for k, n := range totals {
			if n != full {
				t.Fatalf("window %d: the parts release %d, want the limit %d", k, n, full)
			}
		}
	})
}

// A gate with a part and a quota whose window has no reset known reserves at once, and
// every reservation returns, whatever the part (a helper's trial: with a fortieth of 10 a
// second, every other part made Reserve loop for good, holding the gate's lock, the grid
// the calendar searched and the one it placed on starting at different times).
func TestPropertyReserveReturns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.Int64Range(1, 1000).Draw(t, "limit")
		size := rapid.Float64Range(0.0001, 1).Draw(t, "size")
		from := rapid.Float64Range(0, 1).Draw(t, "from")
		view := QuotaView{Quota: "requests", Limit: limit, Window: time.Duration(rapid.Int64Range(1, 10_000).Draw(t, "window ms")) * time.Millisecond, Remaining: -1}
		if rapid.Bool().Draw(t, "current window") {
			view.Remaining = rapid.Int64Range(0, limit).Draw(t, "remaining")
			view.Reset = ms(rapid.Int64Range(1, 10_000).Draw(t, "reset ms"))
		}
		n := rapid.IntRange(1, 30).Draw(t, "reservations")
		done := make(chan []int64, 1)
		g, err := NewGate(Config{})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			g.Share(ms(0), []QuotaView{view}, time.Time{}, Part{From: from, To: from + size})
			at, _ := reserveAll(g, ms(0), n)
			done <- at
		}()
		select {
		case at := <-done:
			if view.Remaining < 0 && at[0] != 0 {
				t.Fatalf("no reset known: the first reservation at %d ms, want at once", at[0])
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%d reservations with part [%v, %v) of %+v did not return in 5 s", n, from, from+size, view)
		}
	})
}
