package simulate

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/ratelimit"
)

// The ratelimit model's fleet rows (issue 33): the calls are spread over rateReplicas
// replicas, round robin, each running our default policy with a local rate gate (probe 1s)
// that reads every answer, as the replicas of a service sharing one API key do. Alone, each
// replica's gate knows what it reads. With the fleet gate, each replica also meets a store
// every fleetTick (jittered ×[0.8, 1.2), its first tick at a seeded phase, as package
// fleet's syncer), which follows package fleet's rules: each quota's view merged by
// fleet.MergeQuota, the longest hold, each replica's demand (the attempts its gate was
// asked for over fleet.DefaultDemandWindow, or, when more, those pending) for
// fleet.Config.StaleAfter's default, and the
// replica's part by fleet.RatePart with MinReplicas rateReplicas; its gate takes them in
// (ratelimit.Gate.Share). An exchange takes no time, and the store never loses its data.
const (
	rateReplicas = 10
	rateShareFor = 3 * fleetTick
)

// rateFleet is a fleet row's store, and the replicas that meet it.
type rateFleet struct {
	sm       *sim
	rng      *rand.Rand
	replicas []*fleetGate
	quotas   map[string]rateFleetQuota // by quota name
	hold     time.Time
	demands  map[string]rateFleetDemand // by replica
}

// rateFleetQuota is a quota's view in the store, its reset on the virtual clock.
type rateFleetQuota struct {
	limit     int64
	window    time.Duration
	remaining int64     // negative: no current window
	reset     time.Time // zero: none
}

// rateFleetDemand is a replica's demand, counted until then.
type rateFleetDemand struct {
	own   int64
	until time.Time
}

// fleetGate is a replica's gate in a fleet row: a ratelimit.Gate that counts the attempts
// it is asked for (its demand), as package fleet's RateGate does.
type fleetGate struct {
	*ratelimit.Gate
	name   string
	asked  int64       // since the last exchange
	demand []demandLog // the attempts asked for between exchanges, within the demand window
}

type demandLog struct {
	at    time.Time
	asked int64
}

// Reserve counts the attempt in the replica's demand unless the gate asks to ask again.
func (g *fleetGate) Reserve(now, notBefore time.Time) (time.Time, uint64) {
	at, token := g.Gate.Reserve(now, notBefore)
	if token != 0 || !at.After(notBefore) {
		g.asked++
	}
	return at, token
}

// rateReplicaRows returns the fleet rows: rateReplicas replicas each with its own gate (a
// gate used as issue 33 found it, not the one service issue 32's check is about), and the
// same with the fleet gate.
func rateReplicaRows() []rateRow {
	return []rateRow{
		{name: fmt.Sprintf("%d replicas, each its own gate (probe 1s)", rateReplicas),
			replicas: func(sm *sim, seed int64) ([]rateClient, error) { return rateReplicaClients(sm, seed, false) }},
		{name: fmt.Sprintf("%d replicas, a fleet gate (probe 1s)", rateReplicas), ours: true,
			replicas: func(sm *sim, seed int64) ([]rateClient, error) { return rateReplicaClients(sm, seed, true) }},
	}
}

// rateReplicaClients returns rateReplicas replicas, each with our default policy and a gate
// of its own, which shares its quotas through a rateFleet when shared.
func rateReplicaClients(sm *sim, seed int64, shared bool) ([]rateClient, error) {
	var f *rateFleet
	if shared {
		f = &rateFleet{sm: sm, rng: rand.New(rand.NewPCG(uint64(seed), 33)), quotas: map[string]rateFleetQuota{},
			demands: map[string]rateFleetDemand{}}
	}
	clients := make([]rateClient, rateReplicas)
	for i := range clients {
		gate, err := ratelimit.NewGate(ratelimit.Config{ProbeWait: rateProbeWait})
		if err != nil {
			return nil, err
		}
		random := backoff.NewSource(uint64(seed) + uint64(i))
		var g rateGate = gate
		if f != nil {
			fg := &fleetGate{Gate: gate, name: fmt.Sprintf("replica-%02d", i)}
			// Before its first exchange, a replica keeps to 1/MinReplicas of each quota,
			// from a random place in [0, 1) (fleet.RateGateGroup's first part).
			from := f.rng.Float64() * (1 - 1.0/rateReplicas)
			gate.Share(sm.clock(), nil, time.Time{}, ratelimit.Part{From: from, To: from + 1.0/rateReplicas})
			f.replicas = append(f.replicas, fg)
			g = fg
		}
		clients[i] = rateClient{policy: &retry.Policy{RateGate: g, Random: random}, gate: g, random: random, fleet: f}
		if err := clients[i].policy.Validate(); err != nil {
			return nil, err
		}
	}
	return clients, nil
}

// start has every replica meet the store every tick, from a seeded phase, while live
// reports calls still running.
func (f *rateFleet) start(live func() bool) {
	for _, g := range f.replicas {
		var tick func()
		tick = func() {
			if !live() {
				return
			}
			f.exchange(g)
			f.sm.after(fleetTick*8/10+time.Duration(f.rng.Int64N(int64(fleetTick*4/10))), tick)
		}
		f.sm.after(time.Duration(f.rng.Int64N(int64(fleetTick))), tick)
	}
}

// exchange is replica g's tick: its views, hold and demand to the store, and the fleet's
// views, hold and g's part back to its gate, by package fleet's rules.
func (f *rateFleet) exchange(g *fleetGate) {
	now := f.sm.clock()
	g.demand = append(g.demand, demandLog{now, g.asked})
	g.asked = 0
	var own int64
	kept := g.demand[:0]
	for _, d := range g.demand {
		if now.Sub(d.at) < fleet.DefaultDemandWindow {
			kept = append(kept, d)
			own += d.asked
		}
	}
	g.demand = kept
	views, hold, pending := g.Snapshot(now, nil)
	own = max(own, int64(pending))
	for _, v := range views {
		in := fleet.Quota{Name: v.Quota, Limit: v.Limit, Window: v.Window, Remaining: -1}
		if v.Remaining >= 0 && v.Reset.After(now) {
			in.Remaining, in.ResetIn = v.Remaining, v.Reset.Sub(now)
		}
		f.quotas[v.Quota] = f.quotas[v.Quota].merge(in, now)
	}
	if hold.After(now) {
		f.hold = later(f.hold, hold)
	}
	f.demands[g.name] = rateFleetDemand{own: own, until: now.Add(rateShareFor)}
	demands := make(map[string]int64, len(f.demands))
	for name, d := range f.demands {
		if now.After(d.until) {
			delete(f.demands, name)
			continue
		}
		demands[name] = d.own
	}
	views = views[:0]
	for _, name := range slices.Sorted(maps.Keys(f.quotas)) { // a seed's run is the same every time
		q := f.quotas[name]
		views = append(views, ratelimit.QuotaView{Quota: name, Limit: q.limit, Window: q.window, Remaining: q.remaining, Reset: q.reset})
	}
	g.Share(now, views, f.hold, fleet.RatePart(g.name, demands, rateReplicas))
}

// merge is q merged with a replica's view in, counted from now, by fleet.MergeQuota.
func (q rateFleetQuota) merge(in fleet.Quota, now time.Time) rateFleetQuota {
	stored := fleet.Quota{Name: in.Name, Limit: q.limit, Window: q.window, Remaining: -1}
	if q.remaining >= 0 && q.reset.After(now) {
		stored.Remaining, stored.ResetIn = q.remaining, q.reset.Sub(now)
	}
	m := fleet.MergeQuota(stored, in)
	out := rateFleetQuota{limit: m.Limit, window: m.Window, remaining: m.Remaining}
	if m.ResetIn > 0 {
		out.reset = now.Add(m.ResetIn)
	}
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// rateFleetCheck states issue 33's target for replicas sharing one API key: with the fleet
// gate, every call succeeds, at most 5 % of the requests answered 429.
func rateFleetCheck(r *Report, o Options) {
	alone := fmt.Sprintf("%d replicas, each its own gate (probe 1s)", rateReplicas)
	shared := fmt.Sprintf("%d replicas, a fleet gate (probe 1s)", rateReplicas)
	var a, f map[string]float64
	for _, row := range r.Rows {
		switch row.Policy {
		case alone:
			a = row.Metrics
		case shared:
			f = row.Metrics
		}
	}
	r.check(fmt.Sprintf("%d replicas sharing a fleet gate: all %d calls succeed, with at most 5 %% of the requests answered 429",
		rateReplicas, o.Clients), "issue 33's target for replicas sharing one API key (the defaults: 200 calls, 20 a replica, against 50 requests/s)",
		f["successes"] == float64(o.Clients) && f["throttled"] <= 0.05*f["requests"],
		"fleet gate: %.0f succeeded, %.0f requests, %.0f answered 429, the last call ended at %.2f s; each its own gate: %.0f succeeded, %.0f requests, %.0f answered 429",
		f["successes"], f["requests"], f["throttled"], f["finish_s"], a["successes"], a["requests"], a["throttled"])
}
