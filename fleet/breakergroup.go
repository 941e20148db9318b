package fleet

import (
	"context"
	"sync"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
)

// Defaults of a [BreakerConfig]'s zero fields.
const (
	// DefaultFailureRate is the share of the fleet's calls in the window that, once failed,
	// opens the breaker fleet-wide.
	DefaultFailureRate = 0.5
	// DefaultMinCalls is the least number of fleet calls in the window for the fleet rule.
	DefaultMinCalls = 20
	// DefaultWindow is the fleet rule's sliding window: short, so that a fleet with traffic
	// opens within about a second of an outage (with a window of 10 s, failures must first
	// outnumber 5 s of past successes). A sparse fleet (cron jobs) needs a longer one.
	DefaultWindow = 2 * time.Second
	// DefaultMaxKeys is how many destinations a [BreakerGroup] keeps when MaxKeys is zero.
	DefaultMaxKeys = 1024
)

// BreakerConfig configures a fleet [Breaker] or [BreakerGroup].
type BreakerConfig struct {
	// Fleet says how to meet the fleet; its Store and Name are required.
	Fleet Config
	// Breaker configures each replica's local breaker (package breaker: consecutive
	// failures, failure rate, open timeout ...). Its OpenTimeout (default 30 s) is also the
	// fleet's: how long a fleet-wide OPEN lasts, and how often the fleet makes a trial call.
	// Its OnStateChange sees the local breaker's changes only, among them its return to CLOSED
	// (breaker.Breaker.Reset) when the fleet closes.
	Breaker breaker.Config
	// FailureRate opens the breaker fleet-wide when failures make up at least this share of
	// the fleet's calls in the last Window, once there are at least MinCalls of them. A
	// ratio in (0, 1]; zero means DefaultFailureRate.
	FailureRate float64
	// MinCalls is the least number of fleet calls in the window for FailureRate to apply;
	// zero means DefaultMinCalls, otherwise 1 to 2^31-1.
	MinCalls int
	// Window is the fleet rule's sliding window, in ten buckets by the store's clock; zero
	// means DefaultWindow, otherwise at least 100 ms.
	Window time.Duration
	// MaxKeys bounds how many destinations a BreakerGroup keeps (one key, and one key per
	// exchange, each); beyond it the least recently used is forgotten. Zero means
	// DefaultMaxKeys; negative is invalid.
	MaxKeys int
}

func (c *BreakerConfig) validate() error {
	if err := c.Fleet.validate(); err != nil {
		return err
	}
	if err := c.Breaker.Validate(); err != nil {
		return err
	}
	switch {
	case !(c.FailureRate >= 0 && c.FailureRate <= 1):
		return invalid("FailureRate %v out of range: must be in (0, 1], or 0 for the default %v", c.FailureRate, DefaultFailureRate)
	case c.MinCalls < 0 || c.MinCalls > 1<<31-1:
		return invalid("MinCalls %d out of range: must be 1 to 2147483647, or 0 for the default %d", c.MinCalls, DefaultMinCalls)
	case c.Window < 0 || (c.Window > 0 && c.Window < 100*time.Millisecond):
		return invalid("Window %v out of range: must be at least 100ms, or 0 for the default %v", c.Window, DefaultWindow)
	case c.MaxKeys < 0:
		return invalid("MaxKeys %d out of range: must be positive, or 0 for the default %d", c.MaxKeys, DefaultMaxKeys)
	}
	return nil
}

func (c *BreakerConfig) failureRate() float64 {
	if c.FailureRate == 0 {
		return DefaultFailureRate
	}
	return c.FailureRate
}

func (c *BreakerConfig) minCalls() int64 {
	if c.MinCalls == 0 {
		return DefaultMinCalls
	}
	return int64(c.MinCalls)
}

func (c *BreakerConfig) window() time.Duration {
	if c.Window == 0 {
		return DefaultWindow
	}
	return c.Window
}

func (c *BreakerConfig) openTimeout() time.Duration {
	if c.Breaker.OpenTimeout == 0 {
		return breaker.DefaultOpenTimeout
	}
	return c.Breaker.OpenTimeout
}

// BreakerGroup keeps one fleet [Breaker] per destination, all synced by one goroutine in one
// exchange per tick. It implements retryhttp.BreakerGroup, so it can serve as
// retryhttp.Transport.Breakers. Create one with [NewBreakerGroup] and Close it when done.
// Safe for concurrent use.
type BreakerGroup struct {
	cfg  BreakerConfig
	sync *syncer

	mu   sync.Mutex
	keys map[string]*Breaker
	tick int64 // exchanges made, for forgetting the least recently used key

	x Exchange // reused by every exchange; guarded by the syncer's lock
}

// NewBreakerGroup returns an empty group and starts its syncer, or returns an error wrapping
// ErrInvalidConfig (or breaker.ErrInvalidConfig) that names the field out of range.
func NewBreakerGroup(cfg BreakerConfig) (*BreakerGroup, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	g := &BreakerGroup{cfg: cfg, keys: make(map[string]*Breaker)}
	g.sync = newSyncer(cfg.Fleet, g.exchange)
	g.x = Exchange{Group: cfg.Fleet.Name + ":breaker", Replica: g.sync.replica, Window: cfg.window(),
		OpenTimeout: cfg.openTimeout()}
	g.sync.start()
	return g, nil
}

// NewBreaker returns a single fleet breaker (a group's breaker of key "") with its own
// syncer; Close it when done. The error is NewBreakerGroup's.
func NewBreaker(cfg BreakerConfig) (*Breaker, error) {
	g, err := NewBreakerGroup(cfg)
	if err != nil {
		return nil, err
	}
	b := g.Get("")
	b.owner = true
	return b, nil
}

// Get returns the breaker of key (for retryhttp, breaker.Key of the URL), creating it
// CLOSED, with a fresh local breaker, when the group has none. The group keeps at most
// MaxKeys; a new key beyond it forgets the least recently used.
func (g *BreakerGroup) Get(key string) *Breaker {
	g.mu.Lock()
	defer g.mu.Unlock()
	b := g.keys[key]
	if b == nil {
		if len(g.keys) >= g.maxKeys() {
			g.forgetOldestLocked()
		}
		b = g.addLocked(key)
	}
	b.used = g.tick
	return b
}

// addLocked creates the CLOSED breaker of key, with a fresh local breaker, and keeps it;
// g.mu is held.
func (g *BreakerGroup) addLocked(key string) *Breaker {
	b := &Breaker{g: g, key: key, used: g.tick}
	b.local.Store(g.newLocal())
	g.keys[key] = b
	return b
}

// Breaker returns Get(key) as a retry.CircuitBreaker (retryhttp.BreakerGroup). On a nil
// *BreakerGroup it returns nil (no breaker), so that a group made only when configured may
// be set as it is.
func (g *BreakerGroup) Breaker(key string) retry.CircuitBreaker {
	if g == nil {
		return nil
	}
	return g.Get(key)
}

// SyncNow makes one exchange now, bounded by ctx and Config.Timeout, asking the store to
// elect this replica for the trial call of any HALF_OPEN key (so a short-lived process about
// to call is a candidate). A short-lived process calls it once before its first attempt; the
// error (also counted in Stats) leaves decisions local only. After Close it makes no
// exchange and returns ErrClosed.
func (g *BreakerGroup) SyncNow(ctx context.Context) error {
	g.mu.Lock()
	for _, b := range g.keys {
		b.refused.Add(1) // a call is about to be made: be a candidate
	}
	g.mu.Unlock()
	return g.sync.run(ctx)
}

// Stats returns the group's exchange counts and staleness.
func (g *BreakerGroup) Stats() Stats { return g.sync.stats() }

// Close stops the syncer, waits for it, and flushes this replica's last counts (and a trial
// call's result) in one exchange bounded by Config.Timeout, whose error it returns. The
// breakers keep working, local only, after Close. Close is idempotent.
func (g *BreakerGroup) Close() error { return g.sync.close() }

func (g *BreakerGroup) maxKeys() int {
	if g.cfg.MaxKeys == 0 {
		return DefaultMaxKeys
	}
	return g.cfg.MaxKeys
}

func (g *BreakerGroup) newLocal() *breaker.Breaker {
	b, err := breaker.New(g.cfg.Breaker)
	if err != nil {
		panic("fleet: breaker config validated yet refused: " + err.Error()) // unreachable
	}
	return b
}

func (g *BreakerGroup) forgetOldestLocked() {
	var oldest *Breaker
	for _, b := range g.keys {
		if oldest == nil || b.used < oldest.used {
			oldest = b
		}
	}
	delete(g.keys, oldest.key)
}

// exchange is the syncer's: every key's counts and operation to the store, the fleet's view
// back to every key. On error, counts and operations are kept for the next exchange.
func (g *BreakerGroup) exchange(ctx context.Context) error {
	g.mu.Lock()
	g.tick++
	x := &g.x
	x.Keys = x.Keys[:0]
	bs := make([]*Breaker, 0, len(g.keys))
	for _, b := range g.keys {
		bs = append(bs, b)
		x.Keys = append(x.Keys, b.take())
	}
	g.mu.Unlock()
	started := time.Since(g.sync.epoch)
	if err := g.cfg.Fleet.Store.Exchange(ctx, x); err != nil {
		for i, b := range bs {
			b.giveBack(&x.Keys[i])
		}
		return err
	}
	now := time.Since(g.sync.epoch)
	for i, b := range bs {
		b.apply(&x.Keys[i], started, now)
	}
	g.learnOpened(x.Opened, now)
	return nil
}

// learnOpened takes the keys the fleet has opened that this replica has not called yet, so
// their first call here is refused too, as far as MaxKeys allows without forgetting others.
func (g *BreakerGroup) learnOpened(opened []Key, now time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range opened {
		k := &opened[i]
		if _, known := g.keys[k.Name]; known || len(g.keys) >= g.maxKeys() {
			continue
		}
		g.addLocked(k.Name).apply(k, now, now)
	}
}
