package ratelimit

import (
	"slices"
	"sort"
	"time"
)

// schedule is a calendar of the positions reservations hold: each holds spans [from, to)
// that no other may overlap, so that whatever order the reservations were asked in, no
// position is given twice. A reservation asked for a later position does not push back
// those asked for earlier ones, and a cancelled reservation's spans are free again. The
// positions are a quota's units, numbered window after window (see grid), or the adaptive
// bucket's nanoseconds.
type schedule struct {
	spans []span     // each reservation's, sorted by from; never overlapping, so sorted by to as well
	busy  []interval // the same positions, touching spans merged: a contiguous run is one interval
}

type span struct {
	interval
	token uint64 // the reservation holding it; 0 for a throttled attempt's
}

type interval struct{ from, to int64 }

// earliest returns the first position at p or later where a span of length d overlaps none.
func (s *schedule) earliest(p, d int64) int64 {
	i := sort.Search(len(s.busy), func(i int) bool { return s.busy[i].to > p })
	for ; i < len(s.busy) && s.busy[i].from < p+d; i++ {
		p = max(p, s.busy[i].to)
	}
	return p
}

// latest returns the last position p with lo ≤ p and p+d ≤ hi where a span of length d
// overlaps none; false when there is none.
func (s *schedule) latest(lo, hi, d int64) (int64, bool) {
	end := hi
	for i := sort.Search(len(s.busy), func(i int) bool { return s.busy[i].from >= hi }) - 1; i >= 0; i-- {
		b := s.busy[i]
		if b.to <= end && end-max(b.to, lo) >= d {
			break
		}
		end = min(end, b.from)
		if end-lo < d {
			return 0, false
		}
	}
	if end-lo < d {
		return 0, false
	}
	return end - d, true
}

// add holds [from, from+d) for token; the span must be free (earliest or latest returned
// from).
func (s *schedule) add(from, d int64, token uint64) {
	sp := span{interval{from, from + d}, token}
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].from >= from })
	s.spans = slices.Insert(s.spans, i, sp)

	j := sort.Search(len(s.busy), func(j int) bool { return s.busy[j].from > from })
	joinPrev := j > 0 && s.busy[j-1].to == sp.from
	joinNext := j < len(s.busy) && s.busy[j].from == sp.to
	switch {
	case joinPrev && joinNext:
		s.busy[j-1].to = s.busy[j].to
		s.busy = slices.Delete(s.busy, j, j+1)
	case joinPrev:
		s.busy[j-1].to = sp.to
	case joinNext:
		s.busy[j].from = sp.from
	default:
		s.busy = slices.Insert(s.busy, j, sp.interval)
	}
}

// remove frees every span token holds.
func (s *schedule) remove(token uint64) {
	for i := 0; i < len(s.spans); {
		if s.spans[i].token != token {
			i++
			continue
		}
		sp := s.spans[i].interval
		s.spans = slices.Delete(s.spans, i, i+1)
		j := sort.Search(len(s.busy), func(j int) bool { return s.busy[j].to > sp.from }) // the one holding sp
		b := s.busy[j]
		var parts []interval
		if b.from < sp.from {
			parts = append(parts, interval{b.from, sp.from})
		}
		if sp.to < b.to {
			parts = append(parts, interval{sp.to, b.to})
		}
		s.busy = slices.Replace(s.busy, j, j+1, parts...)
	}
}

// prune forgets the spans that end at p or before.
func (s *schedule) prune(p int64) {
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].to > p })
	s.spans = slices.Delete(s.spans, 0, i)
	j := sort.Search(len(s.busy), func(j int) bool { return s.busy[j].to > p })
	s.busy = slices.Delete(s.busy, 0, j)
}

// clear forgets every span, keeping the memory.
func (s *schedule) clear() {
	s.spans, s.busy = s.spans[:0], s.busy[:0]
}

// empty reports whether no span holds any position.
func (s *schedule) empty() bool { return len(s.spans) == 0 }

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
