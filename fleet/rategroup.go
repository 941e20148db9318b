package fleet

import (
	"context"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/lru"
	"github.com/retrykit/retry/ratelimit"
)

// DefaultDemandWindow is how far back a replica counts its demand (RateGateConfig's
// DemandWindow when zero): the attempts its gate was asked for, which weigh its part.
const DefaultDemandWindow = 2 * time.Second

// RateGateConfig configures a fleet [RateGate] or [RateGateGroup].
type RateGateConfig struct {
	// Fleet says how to meet the fleet; its Store and Name are required. Name names the
	// quota shared, such as the API key's account: processes calling one API under
	// different keys use different Names.
	Fleet Config
	// Gate configures each replica's local gate (ratelimit.Config: its first-contact
	// probe, which a replica that starts many calls at once wants).
	Gate ratelimit.Config
	// MinReplicas is the fewest replicas the quotas are shared among: each replica's part
	// counts at least MinReplicas replicas in the fleet, so that at a cold start the first
	// replica to meet the store does not take a whole quota, and a replica that never saw a
	// view keeps to 1/MinReplicas of each while the store is out of reach. Set it to the
	// number of replicas you run. Zero means 1 (a process alone takes a whole quota: the
	// retry command's case); negative is invalid.
	MinReplicas int
	// DemandWindow is how far back a replica counts the attempts its gate was asked for,
	// its demand (or, when more, the attempts its gate holds pending), which weighs its
	// part. Zero means DefaultDemandWindow; otherwise at least Fleet.Interval.
	DemandWindow time.Duration
	// MaxKeys bounds how many destinations a RateGateGroup keeps (one local gate, and one
	// key per exchange, each); beyond it the least recently used is forgotten. Zero means
	// DefaultMaxKeys; negative is invalid.
	MaxKeys int
}

func (c *RateGateConfig) validate() error {
	if err := c.Fleet.validate(); err != nil {
		return err
	}
	if err := c.Gate.Validate(); err != nil {
		return err
	}
	switch {
	case c.MinReplicas < 0:
		return invalid("MinReplicas %d out of range: must be positive, or 0 for 1", c.MinReplicas)
	case c.DemandWindow < 0 || (c.DemandWindow > 0 && c.DemandWindow < c.Fleet.interval()):
		return invalid("DemandWindow %v out of range: must be at least the Interval %v, or 0 for the default %v",
			c.DemandWindow, c.Fleet.interval(), DefaultDemandWindow)
	}
	return validateMaxKeys(c.MaxKeys)
}

func (c *RateGateConfig) demandWindow() time.Duration {
	if c.DemandWindow == 0 {
		return DefaultDemandWindow
	}
	return c.DemandWindow
}

// RateGateGroup keeps one fleet [RateGate] per destination, all synced by one goroutine in
// one exchange per tick, so that each destination's quotas are shared out by the fleet. It
// implements retryhttp.RateGateGroup, so it can serve as retryhttp.Transport.RateGates (one
// gate per scheme, host and port) and as retrygrpc's WithRateGates (one per target). Create
// one with [NewRateGateGroup] and Close it when done. Safe for concurrent use.
type RateGateGroup struct {
	cfg    RateGateConfig
	rule   RateRule
	window time.Duration
	sync   *syncer
	keys   lru.Cache[*RateGate]

	// Guarded by the syncer's lock:
	x  Exchange    // reused by every exchange
	gs []*RateGate // the gates of x.Keys
}

// NewRateGateGroup returns an empty group and starts its syncer, or returns an error
// wrapping ErrInvalidConfig (or ratelimit.ErrInvalidConfig) that names the field out of
// range.
func NewRateGateGroup(cfg RateGateConfig) (*RateGateGroup, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	g := &RateGateGroup{cfg: cfg, window: cfg.demandWindow(),
		rule: RateRule{MinReplicas: max(cfg.MinReplicas, 1), ShareFor: cfg.Fleet.staleAfter()}}
	g.keys = lru.Cache[*RateGate]{Max: maxKeys(cfg.MaxKeys), New: g.newGate}
	g.sync = newSyncer(cfg.Fleet, g.exchange)
	g.x = Exchange{Group: cfg.Fleet.Name + ":rate", Replica: g.sync.replica, Window: g.window, Rate: &g.rule}
	g.sync.start()
	return g, nil
}

// NewRateGate returns a single fleet rate gate (a group's gate of key "") with its own
// syncer; Close it when done. The error is NewRateGateGroup's.
func NewRateGate(cfg RateGateConfig) (*RateGate, error) {
	g, err := NewRateGateGroup(cfg)
	if err != nil {
		return nil, err
	}
	r := g.Gate("")
	r.owner = true
	return r, nil
}

// Gate returns the gate of key (for retryhttp, breaker.Key of the URL; for retrygrpc, the
// target), creating it when the group has none, with a local gate that knows nothing yet
// and the part of a replica that never saw a view. When the group has met the store
// before, it asks for an exchange at once (without waiting for it), which brings the fleet's
// view of the key; a new group's first exchange (SyncNow, or its first tick) does so
// anyway. The group keeps at most MaxKeys; a new key beyond it forgets the least recently
// used.
func (g *RateGateGroup) Gate(key string) *RateGate { return g.keys.Get(key) }

// newGate creates the gate of key.
func (g *RateGateGroup) newGate(key string) *RateGate {
	local, err := ratelimit.NewGate(g.cfg.Gate)
	if err != nil {
		panic("fleet: rate gate config validated yet refused: " + err.Error()) // unreachable
	}
	r := &RateGate{g: g, key: key, local: local}
	r.own.Start(time.Now())
	part := firstPart(g.rule.MinReplicas)
	r.setPart(part)
	local.Share(time.Now(), nil, time.Time{}, part)
	if g.sync.exchanges.Load()+g.sync.failures.Load() > 0 {
		g.sync.poke() // the fleet's view of a running replica's new destination, without waiting for the tick
	}
	return r
}

// RateGate returns Gate(key) as a retry.RateGate (retryhttp.RateGateGroup). On a nil
// *RateGateGroup it returns nil (no gate), so that a group made only when configured may be
// set as it is.
func (g *RateGateGroup) RateGate(key string) retry.RateGate {
	if g == nil {
		return nil
	}
	return g.Gate(key)
}

// SyncNow makes one exchange now, bounded by ctx and Config.Timeout; a short-lived process
// calls it once before its first attempt, so that it starts from the fleet's view of the
// quotas. Its error (also counted in Stats) leaves the gates local only. After Close it
// makes no exchange and returns ErrClosed.
func (g *RateGateGroup) SyncNow(ctx context.Context) error { return g.sync.run(ctx) }

// Stats returns the group's exchange counts and staleness.
func (g *RateGateGroup) Stats() Stats { return g.sync.stats() }

// Close stops the syncer, waits for it, and tells the fleet this replica's last views in
// one exchange bounded by Config.Timeout, which also ends its demand in the parts; it
// returns that exchange's error. The gates keep working, local only, with their last parts,
// after Close. Close is idempotent.
func (g *RateGateGroup) Close() error { return g.sync.close() }

// exchange is the syncer's: every gate's views, hold and demand to the store, the fleet's
// views, hold and the gate's part back.
func (g *RateGateGroup) exchange(ctx context.Context, final bool) error {
	started := time.Now()
	x := &g.x
	x.Keys, g.gs = x.Keys[:0], g.gs[:0]
	g.keys.Range(func(_ string, r *RateGate) {
		g.gs = append(g.gs, r)
		x.Keys = append(x.Keys, r.take(started))
	})
	x.Final = final
	err := g.cfg.Fleet.Store.Exchange(ctx, x)
	if received := time.Now(); err == nil && !final {
		for i, r := range g.gs {
			r.apply(&x.Keys[i], received)
		}
	}
	clear(g.gs) // keep no forgotten gate alive
	return err
}
