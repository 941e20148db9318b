package ratelimit

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The calendar's invariant, whatever is added, removed and pruned: the spans never overlap,
// every span starts at or after the time it was asked for, and the busy intervals are
// exactly the spans' union with touching spans merged.
func TestPropertySchedule(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s schedule
		now := t0
		var held []span
		for i := range rapid.IntRange(1, 300).Draw(t, "steps") {
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0, 1:
				ask := now.Add(time.Duration(rapid.Int64Range(0, 50).Draw(t, "ask")) * time.Millisecond)
				d := time.Duration(rapid.Int64Range(1, 20).Draw(t, "d")) * time.Millisecond
				from := s.earliest(ask, d)
				if from.Before(ask) {
					t.Fatalf("earliest(%v) = %v", ask, from)
				}
				s.add(from, d, uint64(i+1))
				held = append(held, span{interval{from, from.Add(d)}, uint64(i + 1)})
			case 2:
				if len(held) > 0 {
					k := rapid.IntRange(0, len(held)-1).Draw(t, "remove")
					s.remove(held[k].token, held[k].from)
					held = slices.Delete(held, k, k+1)
				}
			case 3:
				now = now.Add(time.Duration(rapid.Int64Range(0, 20).Draw(t, "advance")) * time.Millisecond)
				s.prune(now)
				held = slices.DeleteFunc(held, func(sp span) bool { return !sp.to.After(now) })
			}
			checkSchedule(t, &s, held, now)
		}
	})
}

func checkSchedule(t *rapid.T, s *schedule, held []span, now time.Time) {
	if len(s.spans) != len(held) {
		t.Fatalf("%d spans kept, want %d", len(s.spans), len(held))
	}
	var union []interval
	for i, sp := range s.spans {
		if i > 0 && sp.from.Before(s.spans[i-1].to) {
			t.Fatalf("spans %v and %v overlap", s.spans[i-1], sp)
		}
		if n := len(union); n > 0 && union[n-1].to.Equal(sp.from) {
			union[n-1].to = sp.to
		} else {
			union = append(union, sp.interval)
		}
	}
	// busy may still hold time before now that pruning left in a partly ended interval.
	var busy []interval
	for _, b := range s.busy {
		if b.to.After(now) {
			busy = append(busy, interval{later(b.from, now), b.to})
		}
	}
	for i := range union {
		union[i].from = later(union[i].from, now)
	}
	if !slices.Equal(busy, union) {
		t.Fatalf("busy %v, want the spans' union %v", busy, union)
	}
}
