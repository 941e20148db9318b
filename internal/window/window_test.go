package window

import (
	"testing"
	"time"
)

func TestSlides(t *testing.T) {
	var w Window
	start := time.Unix(0, 0)
	w.Start(start)
	w.Start(start.Add(time.Hour)) // a second Start keeps the first epoch
	if !w.Epoch().Equal(start) {
		t.Fatalf("epoch %v", w.Epoch())
	}
	width := 10 * time.Second // buckets of 1 s
	for s := range 15 {
		w.Advance(time.Duration(s)*time.Second, width)
		w.Add(0)
		if s%3 == 0 {
			w.Add(1)
		}
	}
	// At t=14 s the window holds the buckets of 5..14 s: 10 events of kind 0; kind 1 at 6, 9, 12.
	if w.Total(0) != 10 || w.Total(1) != 3 {
		t.Errorf("totals %d, %d; want 10, 3", w.Total(0), w.Total(1))
	}
	w.Advance(100*time.Second, width) // far ahead: everything left
	if w.Total(0) != 0 || w.Total(1) != 0 {
		t.Errorf("after a long pause totals %d, %d", w.Total(0), w.Total(1))
	}
	w.Advance(50*time.Second, width) // time never goes back: nothing changes
	w.Add(0)
	if w.Total(0) != 1 {
		t.Errorf("total %d", w.Total(0))
	}
	w.Reset()
	if w.Total(0) != 0 || !w.Epoch().IsZero() {
		t.Error("Reset left something")
	}
}

func TestAddN(t *testing.T) {
	var w Window
	w.Start(time.Unix(0, 0))
	w.AddN(0, 5)
	w.Add(0)
	w.Advance(time.Second, 10*time.Second)
	w.AddN(1, 3)
	if w.Total(0) != 6 || w.Total(1) != 3 {
		t.Errorf("totals %d, %d; want 6, 3", w.Total(0), w.Total(1))
	}
	w.Advance(10500*time.Millisecond, 10*time.Second) // the first bucket leaves
	if w.Total(0) != 0 || w.Total(1) != 3 {
		t.Errorf("totals %d, %d; want 0, 3", w.Total(0), w.Total(1))
	}
}
