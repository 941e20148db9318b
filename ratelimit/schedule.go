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
	spans []span // sorted by from; never overlapping, so sorted by to as well
}

type span struct {
	from, to time.Time
	token    uint64 // the reservation holding it; 0 for a throttled attempt's
}

// earliest returns the first time at t or later where a span of length d overlaps none.
func (s *schedule) earliest(t time.Time, d time.Duration) time.Time {
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].to.After(t) })
	for ; i < len(s.spans) && s.spans[i].from.Before(t.Add(d)); i++ {
		t = later(t, s.spans[i].to)
	}
	return t
}

// add holds [from, from+d) for token; the span must be free (earliest returned from).
func (s *schedule) add(from time.Time, d time.Duration, token uint64) {
	i := sort.Search(len(s.spans), func(i int) bool { return !s.spans[i].from.Before(from) })
	s.spans = slices.Insert(s.spans, i, span{from: from, to: from.Add(d), token: token})
}

// remove frees the span of token, if any.
func (s *schedule) remove(token uint64) {
	if i := slices.IndexFunc(s.spans, func(sp span) bool { return sp.token == token }); i >= 0 {
		s.spans = slices.Delete(s.spans, i, i+1)
	}
}

// prune forgets the spans that ended at now or before.
func (s *schedule) prune(now time.Time) {
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].to.After(now) })
	s.spans = slices.Delete(s.spans, 0, i)
}

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
