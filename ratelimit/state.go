package ratelimit

import (
	"slices"
	"sort"
	"time"

	"github.com/retrykit/retry"
)

// maxQuotas is how many quotas a gate keeps for a destination (OpenAI's requests and
// tokens, Anthropic's four, a few IETF policies); a reading of one more forgets the one
// read least recently.
const maxQuotas = 8

// pendingSweep is how often the reservations never done nor cancelled are looked for, and
// pendingHorizon how long, at least, a reservation is kept after its time.
const (
	pendingSweep   = time.Second
	pendingHorizon = time.Minute
)

// state is everything a gate knows of a destination, and its rules: all of them are
// methods of state, called with the gate's lock held and told the time. A fleet gate
// (issue 33) wraps this: local first, exchanging the quotas' views once per tick.
type state struct {
	quotas [maxQuotas]quota
	used   uint8 // bit i: quotas[i] holds a quota

	hold time.Time // a throttle holds every reservation until then; zero: none
	part Part      // the part of every quota kept to (Gate.Share); the zero Part: all

	adaptive cubicBucket // from throttles alone, while no reading told of a quota
	rate     sendRate    // the measured send rate, for adaptive

	contacted bool      // the destination answered, or the probe's wait ran out
	probe     uint64    // the first-contact probe in flight; 0 none
	probeAt   time.Time // when the probe was sent

	last    uint64        // the last token handed out
	pending []reservation // admitted, neither done nor cancelled, by token
	sweepAt time.Time     // when to look for reservations never done nor cancelled
}

// reservation is one admitted attempt, until its Done or Cancel.
type reservation struct {
	token    uint64
	at       time.Time
	cost     int64 // stated token cost; 0 none
	answered bool  // an Observe took it for the attempt its readings answer
	counted  uint8 // bit i: counted in quotas[i].unseen
	paced    uint8 // bit i: holds units of quotas[i].paced
	adaptive bool  // holds a span of adaptive.spaced
}

// idle reports whether the gate knows nothing that slows an attempt, so that it can take
// the lock-free path.
func (s *state) idle(probeWait time.Duration) bool {
	return s.used == 0 && s.hold.IsZero() && !s.adaptive.on && (s.contacted || probeWait == 0)
}

// reserve admits an attempt of stated token cost at notBefore or later, and returns its
// time and token. During the first-contact probe it returns a time to ask again at and
// token 0, admitting nothing.
func (s *state) reserve(now, notBefore time.Time, cost int64, probeWait time.Duration) (time.Time, uint64) {
	s.prune(now, probeWait)
	if !s.contacted && probeWait > 0 {
		if s.probe == 0 {
			s.probe, s.probeAt = s.admit(now, notBefore, cost), later(now, notBefore)
			return notBefore, s.probe
		}
		if end := s.probeAt.Add(probeWait); notBefore.Before(end) {
			return reask(s.probeAt, notBefore, end), 0
		}
	}
	if s.idle(probeWait) {
		return notBefore, 0
	}
	t := s.earliest(now, notBefore, cost)
	if at, ok := s.claim(now, notBefore, t, cost); ok {
		return at, 0
	}
	return t, s.admit(now, t, cost)
}

// earliest returns the first time at t or later that the hold, every quota that applies,
// and the adaptive bucket all admit an attempt of stated token cost.
func (s *state) earliest(now, t time.Time, cost int64) time.Time {
	for {
		start := later(t, s.hold)
		t = start
		for i := range s.quotas {
			if q := &s.quotas[i]; s.has(i) {
				if u := q.units(cost); u > 0 {
					t = q.earliest(t, now, u)
				}
			}
		}
		if s.adaptive.on {
			t = s.adaptive.earliest(t, now)
		}
		if t.Equal(start) {
			return t
		}
	}
}

// admit records an attempt at t, which earliest returned: counted against each current
// window it falls in, holding its units in the calendar of each quota it is paced by.
func (s *state) admit(now, t time.Time, cost int64) uint64 {
	s.last++
	r := reservation{token: s.last, at: t, cost: cost}
	for i := range s.quotas {
		q := &s.quotas[i]
		u := q.units(cost)
		if !s.has(i) || u == 0 {
			continue
		}
		if p, ok := q.admits(t, u); ok {
			q.unseen += u
			q.share -= u
			r.counted |= 1 << i
			if p >= 0 {
				q.paced.add(p, u, r.token)
				r.paced |= 1 << i
			}
		} else if pl, ok := q.place(later(t, now), u); ok { // pl.at is t
			if q.grid.anchor.IsZero() {
				q.grid.anchor = pl.at // the first reservation paced starts a window
			}
			q.paced.add(pl.from, u, r.token)
			if pl.next >= 0 {
				q.paced.add(pl.next, u, r.token)
			}
			r.paced |= 1 << i
		}
	}
	if s.adaptive.on {
		s.adaptive.admit(t, r.token)
		r.adaptive = true
	}
	s.pending = append(s.pending, r)
	return r.token
}

// cancel gives back the reservation of token: what it counted against the current
// windows, and its spans in the schedules.
func (s *state) cancel(now time.Time, token uint64, probeWait time.Duration) {
	s.prune(now, probeWait)
	i, ok := s.find(token)
	if !ok {
		return
	}
	r := &s.pending[i]
	for j := range s.quotas {
		if r.counted&(1<<j) != 0 {
			s.quotas[j].share += s.quotas[j].units(r.cost) // its place in the part is free again
		}
	}
	s.uncount(r, ^uint8(0))
	for j := range s.quotas {
		if r.paced&(1<<j) != 0 {
			s.quotas[j].paced.remove(token)
		}
	}
	if r.adaptive {
		s.adaptive.spaced.remove(token)
	}
	s.pending = slices.Delete(s.pending, i, i+1)
	if token == s.probe {
		s.probe = 0
	}
}

// done ends the reservation of token, whose attempt was answered at now with result res
// and a server's wait of retryAfter. What it counted stays counted until a fresher reading.
func (s *state) done(now time.Time, token uint64, res retry.Result, retryAfter time.Duration, probeWait time.Duration) {
	s.prune(now, probeWait)
	if i, ok := s.find(token); ok {
		s.reanswer(&s.pending[i])
		s.pending = slices.Delete(s.pending, i, i+1)
	}
	if token == s.probe {
		s.probe = 0
	}
	if res != retry.ResultIgnored {
		s.contacted = true
	}
	switch {
	case res == retry.ResultThrottled:
		s.throttled(now, retryAfter)
	case s.adaptive.on:
		s.adaptive.answered(now, s.rate.rate)
	}
}

// reanswer corrects what an Observe took the answer of x for, when x's Done comes and x
// is not the attempt it took: answers that arrive together, or out of the order their
// attempts were sent in, are not told apart by their time. The reservation it took instead
// (the latest sent of those taken for an answer whose Done has not come) is in flight:
// it counts where x counted, and x, which the server counted, no longer does.
func (s *state) reanswer(x *reservation) {
	if x.answered {
		return
	}
	var g *reservation
	for i := range s.pending {
		if r := &s.pending[i]; r.answered && (g == nil || !r.at.Before(g.at)) {
			g = r
		}
	}
	if g == nil {
		return
	}
	g.answered = false
	for i := range s.quotas {
		if bit := uint8(1) << i; x.counted&bit != 0 && g.counted&bit == 0 {
			q := &s.quotas[i]
			q.unseen += q.units(g.cost) - q.units(x.cost)
			g.counted |= bit
			x.counted &^= bit
		}
	}
}

// throttled holds every reservation after a throttle at now: until now + retryAfter when
// the server said so, which also brings forward the reset of every exhausted quota; else
// until the reset of the exhausted quotas, or, when none is, the first reset of the
// current ones. A throttle that says neither its wait nor a request quota turns the adaptive
// bucket on, or slows it down: the gate then has nothing but the throttles to go by.
func (s *state) throttled(now time.Time, retryAfter time.Duration) {
	var hold, first time.Time
	if retryAfter > 0 {
		hold = now.Add(retryAfter)
	}
	exhausted := false
	for i := range s.quotas {
		q := &s.quotas[i]
		if !s.has(i) || !q.current(now) {
			continue
		}
		if first.IsZero() || q.resetAt.Before(first) {
			first = q.resetAt
		}
		if q.avail() > 0 {
			continue
		}
		exhausted = true
		if retryAfter > 0 {
			q.resetAt = earlier(q.resetAt, hold)
			s.regrid(i)
		} else {
			hold = later(hold, q.resetAt)
		}
	}
	if !exhausted && retryAfter <= 0 {
		hold = first
	}
	s.hold = later(s.hold, hold)
	if !s.knowsRequests() && (retryAfter <= 0 || s.adaptive.on) {
		s.adaptive.throttled(now, s.rate.rate)
	}
}

// observe takes in the readings of an answer that arrived at now: which attempt it answers
// (attribute), then what it says (learn).
func (s *state) observe(now time.Time, readings []Reading, probeWait time.Duration) {
	s.prune(now, probeWait)
	s.contacted = true
	s.attribute(now, readings)
	s.learn(now, readings)
}

// attribute takes an answer arriving at now, with readings, to answer the earliest attempt
// sent and not answered yet: the server counted it, so it no longer counts as unseen
// against the quotas read.
func (s *state) attribute(now time.Time, readings []Reading) {
	var read uint8
	for _, r := range readings {
		if informative(r) {
			read |= 1 << s.slot(r.Quota)
		}
	}
	if a := s.answered(now); a != nil {
		a.answered = true
		s.uncount(a, read)
	}
}

// learn takes in what readings that arrived at now say of the quotas.
func (s *state) learn(now time.Time, readings []Reading) {
	for _, r := range readings {
		if !informative(r) {
			continue
		}
		i := s.slot(r.Quota)
		set, began := s.quotas[i].learn(now, s.last, r)
		s.regrid(i)
		if set {
			s.recount(i)
		}
		if began {
			s.quotas[i].split(false)
		}
	}
	if s.knowsRequests() {
		s.adaptive = cubicBucket{} // the server says its limit: no need to guess it
	}
}

// informative reports whether r says anything the gate uses.
func informative(r Reading) bool {
	return r.Limit > 0 || r.Window > 0 || r.Remaining >= 0 && r.Reset > 0
}

// answered returns the reservation an answer arriving at now answers, as far as the gate
// can tell: the earliest sent (at now or before) and not answered yet; nil when none.
func (s *state) answered(now time.Time) *reservation {
	var a *reservation
	for i := range s.pending {
		r := &s.pending[i]
		if !r.answered && !r.at.After(now) && (a == nil || r.at.Before(a.at)) {
			a = r
		}
	}
	return a
}

// recount sets quotas[i].unseen anew after a fresher reading: the units of the attempts
// not answered yet that fall in its window (from two windows before its reset, so as to
// count an attempt sent just before a window was known to start, to its end:
// quota.windowEnd), which the server had not counted when it answered.
func (s *state) recount(i int) {
	q := &s.quotas[i]
	q.unseen = 0
	from, end := q.resetAt.Add(-2*q.window), q.windowEnd()
	for j := range s.pending {
		r := &s.pending[j]
		r.counted &^= 1 << i
		if u := q.units(r.cost); u > 0 && !r.answered && !r.at.Before(from) && r.at.Before(end) {
			q.unseen += u
			r.counted |= 1 << i
		}
	}
}

// uncount takes r out of the unseen counts of the quotas of mask.
func (s *state) uncount(r *reservation, mask uint8) {
	for i := range s.quotas {
		if bit := uint8(1) << i; r.counted&mask&bit != 0 {
			s.quotas[i].unseen -= s.quotas[i].units(r.cost)
			r.counted &^= bit
		}
	}
}

// slot returns the index of the quota named name, making it when the gate has none: in a
// free slot, or in place of the quota read least recently.
func (s *state) slot(name string) int {
	free, oldest := -1, -1
	for i := range s.quotas {
		switch {
		case !s.has(i):
			if free < 0 {
				free = i
			}
		case s.quotas[i].name == name:
			return i
		case oldest < 0 || s.quotas[i].readAt.Before(s.quotas[oldest].readAt):
			oldest = i
		}
	}
	if free < 0 {
		s.forget(oldest)
		free = oldest
	}
	s.quotas[free] = quota{name: name, tokens: isTokenQuota(name), part: s.part}
	s.used |= 1 << free
	return free
}

func (s *state) has(i int) bool { return s.used&(1<<i) != 0 }

// knowsRequests reports whether the gate knows a request quota.
func (s *state) knowsRequests() bool {
	for i := range s.quotas {
		if s.has(i) && !s.quotas[i].tokens {
			return true
		}
	}
	return false
}

// forget drops quotas[i] and every reservation's part in it.
func (s *state) forget(i int) {
	s.quotas[i] = quota{}
	s.used &^= 1 << i
	for j := range s.pending {
		s.pending[j].counted &^= 1 << i
		s.pending[j].paced &^= 1 << i
	}
}

// prune forgets at now what is stale: a hold that ended, spans that ended, quotas whose
// reset passed with nothing read for a window, an adaptive bucket that limits nothing,
// the probe once its wait ran out, and the reservations long past their time that were
// never done nor cancelled. When nothing is left, the gate is idle.
func (s *state) prune(now time.Time, probeWait time.Duration) {
	if !s.hold.After(now) {
		s.hold = time.Time{}
	}
	horizon := pendingHorizon
	for i := range s.quotas {
		if q := &s.quotas[i]; s.has(i) {
			q.prune(now)
			if q.expired(now) {
				s.forget(i)
				continue
			}
			horizon = max(horizon, 2*q.window)
		}
	}
	s.adaptive.prune(now)
	if s.adaptive.on && s.adaptive.stale(now, s.rate.rate) {
		s.adaptive = cubicBucket{}
	}
	if !s.contacted && s.probe != 0 && !now.Before(s.probeAt.Add(probeWait)) {
		s.contacted = true
	}
	if s.idle(probeWait) {
		s.pending, s.probe = nil, 0 // nor the memory of a burst
	} else if !now.Before(s.sweepAt) {
		s.sweepAt = now.Add(pendingSweep)
		s.pending = slices.DeleteFunc(s.pending, func(r reservation) bool {
			return r.at.Add(horizon).Before(now) && r.token != s.probe
		})
	}
}

// find returns the index of the reservation of token in pending.
func (s *state) find(token uint64) (int, bool) {
	if token == 0 {
		return 0, false
	}
	i := sort.Search(len(s.pending), func(i int) bool { return s.pending[i].token >= token })
	return i, i < len(s.pending) && s.pending[i].token == token
}
