package fleet

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/window"
	"github.com/retrykit/retry/ratelimit"
)

// RateGate is a rate gate shared by a fleet (see the package documentation): a local
// [ratelimit.Gate], whose quotas' views, throttle hold and part it exchanges with the fleet
// once per tick. It implements retry.RateGate, and Observe and ReserveN as ratelimit.Gate
// does, so that package retryhttp tells it every answer's rate-limit headers and a
// request's token cost. Get one from [NewRateGate] or [RateGateGroup.Gate]. Safe for
// concurrent use.
//
// Every call goes to the local gate and never waits on the store; a reservation costs one
// atomic addition more (its demand, counted for the fleet). At each exchange the gate
// learns the fleet's views of its quotas, where fresher than its own, and a hold that a
// throttle put on any replica, and keeps from then on to its part of every quota. While
// the view is stale it keeps to its last part alone, with what it reads itself.
type RateGate struct {
	g     *RateGateGroup
	key   string
	owner bool // made by NewRateGate: Close closes the group
	local *ratelimit.Gate

	demand atomic.Int64                   // reservations since the last exchange
	part   atomic.Pointer[ratelimit.Part] // the part in use

	// Guarded by the syncer's lock (one exchange at a time):
	own   window.Window         // reservations in the window, counted at each exchange
	views []ratelimit.QuotaView // the views of the exchange in flight
}

// Reserve is ReserveN with no token cost stated (retry.RateGate).
func (r *RateGate) Reserve(now, notBefore time.Time) (time.Time, uint64) {
	return r.ReserveN(now, notBefore, 0)
}

// ReserveN asks the local gate for a time to send an attempt of expected token cost tokens
// at notBefore or later, as ratelimit.Gate.ReserveN does, and counts it in this replica's
// demand unless the gate asks to ask again (token 0 and a time after notBefore).
func (r *RateGate) ReserveN(now, notBefore time.Time, tokens int64) (time.Time, uint64) {
	at, token := r.local.ReserveN(now, notBefore, tokens)
	if token != 0 || !at.After(notBefore) {
		r.demand.Add(1)
	}
	return at, token
}

// Cancel gives the reservation of token back to the local gate (retry.RateGate).
func (r *RateGate) Cancel(token uint64, now time.Time) { r.local.Cancel(token, now) }

// Done reports an attempt's result to the local gate (retry.RateGate); a throttle's hold
// reaches the fleet at the next exchange.
func (r *RateGate) Done(token uint64, now time.Time, res retry.Result, retryAfter time.Duration) {
	r.local.Done(token, now, res, retryAfter)
}

// Observe tells the local gate what an answer's headers said of the destination's quotas
// (see ratelimit.Gate.Observe); the fleet hears of it at the next exchange.
func (r *RateGate) Observe(now time.Time, readings []ratelimit.Reading) {
	r.local.Observe(now, readings)
}

// Part returns this replica's part of the destination's quotas in use: the store's at the
// last exchange (see [RatePart]), kept while the view is stale; before any,
// 1/RateGateConfig.MinReplicas of them from a random place.
func (r *RateGate) Part() ratelimit.Part { return *r.part.Load() }

// FleetStatus returns the fleet view's age at now (ok false when there has never been one)
// and whether it is stale: the store is out of reach and the gate keeps its last part
// alone.
func (r *RateGate) FleetStatus(now time.Time) (age time.Duration, ok, stale bool) {
	return r.g.sync.status(now)
}

// SyncNow makes one exchange now for the gate's group; see [RateGateGroup.SyncNow].
func (r *RateGate) SyncNow(ctx context.Context) error { return r.g.SyncNow(ctx) }

// Stats returns the exchange counts of the gate's group.
func (r *RateGate) Stats() Stats { return r.g.Stats() }

// Close closes the syncer of a gate made by [NewRateGate] (see [RateGateGroup.Close]); for
// a gate of a group, close the group instead: Close then does nothing and returns nil.
func (r *RateGate) Close() error {
	if !r.owner {
		return nil
	}
	return r.g.Close()
}

// take returns the key's part of the exchange starting at started: the local gate's views,
// with their resets counted from started (the store takes them late by the request's way
// there, never early), its hold, and this replica's demand: the attempts its gate was asked
// for in the window, or, when more, those it holds pending (waiting for their time or in
// flight), so that a replica with a backlog keeps its part after its calls stopped asking.
func (r *RateGate) take(started time.Time) Key {
	r.own.Advance(started.Sub(r.own.Epoch()), r.g.window)
	r.own.AddN(0, r.demand.Swap(0))
	var hold time.Time
	var pending int
	r.views, hold, pending = r.local.Snapshot(started, r.views[:0])
	k := Key{Name: r.key, Own: max(r.own.Total(0), int64(pending)), Quotas: make([]Quota, 0, len(r.views))}
	for _, v := range r.views {
		q := Quota{Name: v.Quota, Limit: v.Limit, Window: v.Window, Remaining: -1}
		if v.Remaining >= 0 && v.Reset.After(started) {
			q.Remaining, q.ResetIn = v.Remaining, v.Reset.Sub(started)
		}
		k.Quotas = append(k.Quotas, q)
	}
	if hold.After(started) {
		k.Hold = hold.Sub(started)
	}
	return k
}

// apply gives the local gate the fleet's view of an exchange whose reply came at received:
// its views and hold, their durations counted from received (a reset or a hold is taken
// late by the reply's way back, never early, as it would be from the exchange's start by
// the request's way there, a first dial's included), and the part. A part from a store
// that has shared the key for less than a tick (it started, or lost its data, since) may
// not count every replica yet: it is then no larger than the part in use.
func (r *RateGate) apply(k *Key, received time.Time) {
	r.views = r.views[:0]
	for _, q := range k.Quotas {
		v := ratelimit.QuotaView{Quota: q.Name, Limit: q.Limit, Window: q.Window, Remaining: -1}
		if q.current() {
			v.Remaining, v.Reset = q.Remaining, received.Add(q.ResetIn)
		}
		r.views = append(r.views, v)
	}
	var hold time.Time
	if k.Hold > 0 {
		hold = received.Add(k.Hold)
	}
	part := k.Part
	if k.Shared < r.g.cfg.Fleet.interval()*6/5 {
		if last := r.Part(); size(part) > size(last) {
			part.To = part.From + size(last)
		}
	}
	r.setPart(part)
	r.local.Share(received, r.views, hold, part)
	clear(r.views) // keep no quota names of a forgotten gate alive
}

func (r *RateGate) setPart(p ratelimit.Part) { r.part.Store(&p) }

// firstPart is a gate's part before any exchange: 1/minReplicas of every quota, from a
// random place in [0, 1), so that replicas that start together without a store do not all
// keep to the same units.
func firstPart(minReplicas int) ratelimit.Part {
	if minReplicas <= 1 {
		return ratelimit.Part{}
	}
	size := 1 / float64(minReplicas)
	from := rand.Float64() * (1 - size)
	return ratelimit.Part{From: from, To: from + size}
}

// size is a part's share of a quota, 1 for the whole quota.
func size(p ratelimit.Part) float64 {
	if s := p.To - p.From; s > 0 && s < 1 {
		return s
	}
	return 1
}
