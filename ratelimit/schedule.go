package ratelimit

import (
	"slices"
	"sort"
	"time"
)

// schedule is a calendar of the times paced reservations hold: each holds a span
// [from, to) that no other may overlap, so that sends are spaced at least a span apart
// whatever order they were asked in. A reservation asked for a later time does not push
// back those asked for earlier ones, and a cancelled reservation's span is free again.
type schedule struct {
	spans []span     // each reservation's, sorted by from; never overlapping, so sorted by to as well
	busy  []interval // the same time, touching spans merged: a contiguous pace is one interval
}

type span struct {
	interval
	token uint64 // the reservation holding it; 0 for a throttled attempt's
}

type interval struct{ from, to time.Time }

// earliest returns the first time at t or later where a span of length d overlaps none.
func (s *schedule) earliest(t time.Time, d time.Duration) time.Time {
	i := sort.Search(len(s.busy), func(i int) bool { return s.busy[i].to.After(t) })
	for ; i < len(s.busy) && s.busy[i].from.Before(t.Add(d)); i++ {
		t = later(t, s.busy[i].to)
	}
	return t
}

// add holds [from, from+d) for token; the span must be free (earliest returned from).
func (s *schedule) add(from time.Time, d time.Duration, token uint64) {
	sp := span{interval{from, from.Add(d)}, token}
	i := sort.Search(len(s.spans), func(i int) bool { return !s.spans[i].from.Before(from) })
	s.spans = slices.Insert(s.spans, i, sp)

	j := sort.Search(len(s.busy), func(j int) bool { return s.busy[j].from.After(from) })
	joinPrev := j > 0 && s.busy[j-1].to.Equal(sp.from)
	joinNext := j < len(s.busy) && s.busy[j].from.Equal(sp.to)
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

// remove frees the span that token holds from from, if any.
func (s *schedule) remove(token uint64, from time.Time) {
	i := sort.Search(len(s.spans), func(i int) bool { return !s.spans[i].from.Before(from) })
	for ; i < len(s.spans) && s.spans[i].from.Equal(from); i++ {
		if s.spans[i].token != token {
			continue
		}
		sp := s.spans[i].interval
		s.spans = slices.Delete(s.spans, i, i+1)
		j := sort.Search(len(s.busy), func(j int) bool { return s.busy[j].to.After(sp.from) }) // the one holding sp
		b := s.busy[j]
		var parts []interval
		if b.from.Before(sp.from) {
			parts = append(parts, interval{b.from, sp.from})
		}
		if sp.to.Before(b.to) {
			parts = append(parts, interval{sp.to, b.to})
		}
		s.busy = slices.Replace(s.busy, j, j+1, parts...)
		return
	}
}

// prune forgets the time that ended at now or before.
func (s *schedule) prune(now time.Time) {
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].to.After(now) })
	s.spans = slices.Delete(s.spans, 0, i)
	j := sort.Search(len(s.busy), func(j int) bool { return s.busy[j].to.After(now) })
	s.busy = slices.Delete(s.busy, 0, j)
}

// empty reports whether no span holds any time.
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
