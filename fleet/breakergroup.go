package fleet

import (
	"context"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/internal/lru"
)

// BreakerGroup keeps one fleet [Breaker] per destination, all synced by one goroutine in one
// exchange per tick. It implements retryhttp.BreakerGroup, so it can serve as
// retryhttp.Transport.Breakers. Create one with [NewBreakerGroup] and Close it when done.
// Safe for concurrent use.
type BreakerGroup struct {
	cfg  BreakerConfig
	sync *syncer
	keys lru.Cache[*Breaker]

	// Guarded by the syncer's lock:
	x  Exchange   // reused by every exchange
	bs []*Breaker // the breakers of x.Keys
}

// NewBreakerGroup returns an empty group and starts its syncer, or returns an error wrapping
// ErrInvalidConfig (or breaker.ErrInvalidConfig) that names the field out of range.
func NewBreakerGroup(cfg BreakerConfig) (*BreakerGroup, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	g := &BreakerGroup{cfg: cfg}
	g.keys = lru.Cache[*Breaker]{Max: maxKeys(cfg.MaxKeys), New: g.newBreaker}
	g.sync = newSyncer(cfg.Fleet, g.exchange)
	g.x = Exchange{Group: cfg.Fleet.Name + ":breaker", Replica: g.sync.replica, Window: cfg.OpenRule.window(),
		OpenTimeout: cfg.openTimeout(), TrialTimeout: cfg.trialTimeout()}
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
func (g *BreakerGroup) Get(key string) *Breaker { return g.keys.Get(key) }

// newBreaker creates the CLOSED breaker of key, with a fresh local breaker.
func (g *BreakerGroup) newBreaker(key string) *Breaker {
	local, err := breaker.New(g.cfg.Breaker)
	if err != nil {
		panic("fleet: breaker config validated yet refused: " + err.Error()) // unreachable
	}
	return &Breaker{g: g, key: key, local: local}
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
	g.keys.Range(func(_ string, b *Breaker) {
		b.refused.Add(1) // a call is about to be made: be a candidate
	})
	return g.sync.run(ctx)
}

// Stats returns the group's exchange counts and staleness.
func (g *BreakerGroup) Stats() Stats { return g.sync.stats() }

// Close stops the syncer, waits for it, and flushes this replica's last counts (and a trial
// call's result) in one exchange bounded by Config.Timeout, whose error it returns. The
// breakers keep working, local only, after Close. Close is idempotent.
func (g *BreakerGroup) Close() error { return g.sync.close() }

// changed queues the OnFleetStateChange call of a change the store reported; the syncer's
// lock is held.
func (g *BreakerGroup) changed(key string, from, to breaker.State) {
	if f := g.cfg.OnFleetStateChange; f != nil {
		at := time.Now()
		g.sync.queue(func() { f(key, from, to, at) })
	}
}

// exchange is the syncer's: every key's counts and operation to the store, the fleet's view
// back to every key. On error, counts and operations are kept for the next exchange.
func (g *BreakerGroup) exchange(ctx context.Context, final bool) error {
	started := time.Since(g.sync.epoch)
	x := &g.x
	x.Keys, g.bs = x.Keys[:0], g.bs[:0]
	g.keys.Range(func(_ string, b *Breaker) {
		g.bs = append(g.bs, b)
		x.Keys = append(x.Keys, b.take(started))
	})
	x.Final = final
	if err := g.cfg.Fleet.Store.Exchange(ctx, x); err != nil {
		for i, b := range g.bs {
			b.giveBack(&x.Keys[i])
		}
		return err
	}
	now := time.Since(g.sync.epoch)
	for i, b := range g.bs {
		b.apply(&x.Keys[i], started, now)
	}
	g.learnOpened(x.Opened, now)
	clear(g.bs) // keep no forgotten breaker alive
	return nil
}

// learnOpened takes the keys the fleet has opened that this replica has not called yet, so
// their first call here is refused too, as far as MaxKeys allows without forgetting others.
func (g *BreakerGroup) learnOpened(opened []Key, now time.Duration) {
	for i := range opened {
		if b, added := g.keys.AddIfRoom(opened[i].Name); added {
			b.apply(&opened[i], now, now)
		}
	}
}
