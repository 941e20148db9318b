package ratelimit

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The grid's numbering (issue 32), exact to the nanosecond whatever the window and limit:
// first(t) is the first position released at t or later; each window's positions are
// released within its first tenth, in order, and every window in the same pattern, which
// is what keeps any window-long span at the limit (see the package doc).
func TestPropertyGrid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := grid{
			anchor: t0.Add(time.Duration(rapid.Int64Range(-int64(time.Hour), int64(time.Hour)).Draw(t, "anchor"))),
			window: time.Duration(rapid.Int64Range(1, int64(24*time.Hour)).Draw(t, "window")),
			limit:  rapid.Int64Range(1, 1<<40).Draw(t, "limit"),
		}
		at := g.anchor.Add(time.Duration(rapid.Int64Range(0, int64(100*g.window)).Draw(t, "since")))
		p, k, ok := g.first(at)
		if !ok {
			return
		}
		start := g.anchor.Add(time.Duration(k) * g.window)
		if at.Before(start) || !at.Before(start.Add(g.window)) {
			t.Fatalf("first(%v): window %d starts at %v", at.Sub(g.anchor), k, start.Sub(g.anchor))
		}
		if g.at(p).Before(at) || p > k*g.limit && !g.at(p-1).Before(at) {
			t.Fatalf("first(%v) = %d, released at %v; %d at %v", at.Sub(g.anchor), p, g.at(p).Sub(g.anchor), p-1, g.at(p-1).Sub(g.anchor))
		}
		q := p - p%g.limit + rapid.Int64Range(0, g.limit-1).Draw(t, "unit")
		w := g.anchor.Add(time.Duration(q/g.limit) * g.window)
		if r := g.at(q); r.Before(w) || !r.Before(w.Add(g.release())) || q%g.limit > 0 && g.at(q-1).After(r) {
			t.Fatalf("position %d released at %v, its window from %v, release %v", q, r.Sub(g.anchor), w.Sub(g.anchor), g.release())
		}
		if g.at(q+g.limit) != g.at(q).Add(g.window) {
			t.Fatalf("position %d at %v, a window later at %v", q, g.at(q).Sub(g.anchor), g.at(q+g.limit).Sub(g.anchor))
		}
	})
}

// A window estimated from a reset is a common length at or above it, never below 1 s, and
// longer resets never give shorter windows (issue 32).
func TestPropertyEstimateWindow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := time.Duration(rapid.Int64Range(1, int64(48*time.Hour)).Draw(t, "a"))
		b := time.Duration(rapid.Int64Range(1, int64(48*time.Hour)).Draw(t, "b"))
		w := estimateWindow(a)
		if w < a || w < minEstimatedWindow || a <= 24*time.Hour && !slices.Contains(windows[:], w) || a > 24*time.Hour && w != a {
			t.Fatalf("estimateWindow(%v) = %v", a, w)
		}
		if a <= b && estimateWindow(b) < w {
			t.Fatalf("estimateWindow(%v) = %v, estimateWindow(%v) = %v", a, w, b, estimateWindow(b))
		}
	})
}
