package ratelimit

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// The calendar's invariant, whatever is added, removed and pruned: the spans never overlap,
// earliest and latest return free spans within what was asked (latest the last one), and
// the busy intervals are exactly the spans' union with touching spans merged.
func TestPropertySchedule(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s schedule
		var now int64
		var held []span
		for i := range rapid.IntRange(1, 300).Draw(t, "steps") {
			token := uint64(i + 1)
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0, 1:
				ask := now + rapid.Int64Range(0, 50).Draw(t, "ask")
				d := rapid.Int64Range(1, 20).Draw(t, "d")
				from := s.earliest(ask, d)
				if from < ask || !free(held, from, d) {
					t.Fatalf("earliest(%d, %d) = %d, not free; held %v", ask, d, from, held)
				}
				for p := ask; p < from; p++ {
					if free(held, p, d) {
						t.Fatalf("earliest(%d, %d) = %d, but %d is free; held %v", ask, d, from, p, held)
					}
				}
				s.add(from, d, token)
				held = append(held, span{interval{from, from + d}, token})
			case 2:
				lo := now + rapid.Int64Range(0, 50).Draw(t, "lo")
				hi := lo + rapid.Int64Range(0, 60).Draw(t, "hi")
				d := rapid.Int64Range(1, 20).Draw(t, "d")
				want, found := int64(0), false
				for p := hi - d; p >= lo; p-- {
					if free(held, p, d) {
						want, found = p, true
						break
					}
				}
				if got, ok := s.latest(lo, hi, d); ok != found || ok && got != want {
					t.Fatalf("latest(%d, %d, %d) = %d, %v; want %d, %v; held %v", lo, hi, d, got, ok, want, found, held)
				}
				if found {
					s.add(want, d, token)
					held = append(held, span{interval{want, want + d}, token})
				}
			case 3:
				if len(held) > 0 {
					k := rapid.IntRange(0, len(held)-1).Draw(t, "remove")
					s.remove(held[k].token)
					held = slices.Delete(held, k, k+1)
				}
			case 4:
				now += rapid.Int64Range(0, 20).Draw(t, "advance")
				s.prune(now)
				held = slices.DeleteFunc(held, func(sp span) bool { return sp.to <= now })
			}
			checkSchedule(t, &s, held, now)
		}
	})
}

// free reports whether [p, p+d) overlaps none of held.
func free(held []span, p, d int64) bool {
	for _, sp := range held {
		if p < sp.to && sp.from < p+d {
			return false
		}
	}
	return true
}

func checkSchedule(t *rapid.T, s *schedule, held []span, now int64) {
	if len(s.spans) != len(held) {
		t.Fatalf("%d spans kept, want %d", len(s.spans), len(held))
	}
	var union []interval
	for i, sp := range s.spans {
		if i > 0 && sp.from < s.spans[i-1].to {
			t.Fatalf("spans %v and %v overlap", s.spans[i-1], sp)
		}
		if n := len(union); n > 0 && union[n-1].to == sp.from {
			union[n-1].to = sp.to
		} else {
			union = append(union, sp.interval)
		}
	}
	// busy may still hold positions before now that pruning left in a partly ended interval.
	var busy []interval
	for _, b := range s.busy {
		if b.to > now {
			busy = append(busy, interval{max(b.from, now), b.to})
		}
	}
	for i := range union {
		union[i].from = max(union[i].from, now)
	}
	if !slices.Equal(busy, union) {
		t.Fatalf("busy %v, want the spans' union %v", busy, union)
	}
}
