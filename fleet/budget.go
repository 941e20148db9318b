package fleet

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/internal/window"
)

// BudgetConfig configures a fleet [Budget].
type BudgetConfig struct {
	// Fleet says how to meet the fleet; its Store and Name are required.
	Fleet Config
	// Budget is the rule, as package budget's Ratio states it: retries within
	// Ratio × requests + MinRetriesPerSecond × Window seconds over the Window. While the
	// fleet view is fresh it bounds the fleet's retries (the floor is the fleet's); while it
	// is stale, this replica's own (a local budget.Ratio with the same settings).
	Budget budget.RatioConfig
}

// Budget is a retry budget shared by a fleet (see the package documentation). It implements
// retry.RetryBudget, retry.ResendCounter and retry.Reporter. Create one with
// [NewBudget] and Close it when done. Safe for concurrent use.
//
// At every exchange the replica learns the fleet's requests R and retries T in the window
// and how many replicas n took part, and may then spend, until the next exchange, its share
// of what is left, (ratio × R + floor − T) × (r + 1) / (R + n), r being its own requests in
// the window: the shares of the fleet add up to what is left. A fractional share is rounded
// up or down at random, in proportion. While the view is stale the local budget decides.
type Budget struct {
	cfg   BudgetConfig
	sync  *syncer
	local *budget.Ratio

	tokens   atomic.Int64 // retries this replica may spend until the next exchange
	requests atomic.Int64 // since the last exchange
	retries  atomic.Int64 // since the last exchange

	// Guarded by the syncer's lock:
	own window.Window // this replica's requests in the window
	x   Exchange
}

// NewBudget returns a fleet budget and starts its syncer, or returns an error wrapping
// ErrInvalidConfig (or budget.ErrInvalidConfig) that names the field out of range.
func NewBudget(cfg BudgetConfig) (*Budget, error) {
	if err := cfg.Fleet.validate(); err != nil {
		return nil, err
	}
	local, err := budget.NewRatio(cfg.Budget)
	if err != nil {
		return nil, err
	}
	b := &Budget{cfg: cfg, local: local}
	b.sync = newSyncer(cfg.Fleet, b.exchange)
	b.x = Exchange{Group: cfg.Fleet.Name + ":budget", Replica: b.sync.replica, Window: b.window(),
		Keys: []Key{{Name: ""}}}
	b.sync.start()
	return b, nil
}

// AllowRetry asks to spend one retry (retry.RetryBudget): from this replica's share while
// the fleet view is fresh, else from the local budget. It never waits on the store.
func (b *Budget) AllowRetry() bool {
	if !b.sync.fresh.Load() {
		return b.local.AllowRetry()
	}
	for {
		t := b.tokens.Load()
		if t <= 0 {
			return false
		}
		if b.tokens.CompareAndSwap(t, t-1) {
			b.retries.Add(1)
			return true
		}
	}
}

// Done counts an attempt that ran as a request (retry.RetryBudget), for the fleet and for
// the local budget.
func (b *Budget) Done(retry bool, r retry.Result) {
	b.requests.Add(1)
	b.local.Done(retry, r)
}

// Resent counts n exchanges that a transport re-sent by itself within an attempt
// (retry.ResendCounter) as n requests and n retries spent, for the fleet and for the local
// budget: retries already made, so this replica's share until the next exchange shrinks by
// n. n below 1 counts nothing.
func (b *Budget) Resent(n int) {
	if n < 1 {
		return
	}
	b.requests.Add(int64(n))
	b.retries.Add(int64(n))
	b.tokens.Add(-int64(n))
	b.local.Resent(n)
}

// FleetStatus returns the fleet view's age at now (ok false when there has never been one)
// and whether it is stale: the store is out of reach and decisions are local only.
func (b *Budget) FleetStatus(now time.Time) (age time.Duration, ok, stale bool) {
	return b.sync.status(now)
}

// RecordAttrs returns the budget's fields of a decision record at now (retry.Reporter): the
// fleet view's "fleet_age_ms" and "fleet_stale" (see [Budget.FleetStatus]).
func (b *Budget) RecordAttrs(now time.Time) [4]slog.Attr {
	age, stale := b.sync.recordAttrs(now)
	return [4]slog.Attr{age, stale}
}

// Tokens returns how many retries this replica may still spend before the next exchange
// while the fleet view is fresh.
func (b *Budget) Tokens() int64 { return max(0, b.tokens.Load()) }

// SyncNow makes one exchange now, bounded by ctx and Config.Timeout; a short-lived process
// calls it once before its first attempt. Its error (also counted in Stats) leaves
// decisions local only. After Close it makes no exchange and returns ErrClosed.
func (b *Budget) SyncNow(ctx context.Context) error { return b.sync.run(ctx) }

// Stats returns the budget's exchange counts and staleness.
func (b *Budget) Stats() Stats { return b.sync.stats() }

// Close stops the syncer, waits for it, and flushes the last counts in one exchange bounded
// by Config.Timeout, whose error it returns. The budget keeps working, local only, after
// Close. Close is idempotent.
func (b *Budget) Close() error { return b.sync.close() }

func (b *Budget) window() time.Duration { return ratioWindow(b.cfg.Budget) }

// ratioWindow is cfg's window: Window, or budget.DefaultWindow when zero.
func ratioWindow(cfg budget.RatioConfig) time.Duration {
	if cfg.Window == 0 {
		return budget.DefaultWindow
	}
	return cfg.Window
}

func (b *Budget) exchange(ctx context.Context) error {
	k := &b.x.Keys[0]
	k.Add = [2]int64{b.requests.Swap(0), b.retries.Swap(0)}
	now := time.Now()
	b.own.Start(now)
	b.own.Advance(now.Sub(b.own.Epoch()), b.window())
	if err := b.cfg.Fleet.Store.Exchange(ctx, &b.x); err != nil {
		b.requests.Add(k.Add[0]) // sent again, and counted in own, at the next exchange
		b.retries.Add(k.Add[1])
		return err
	}
	b.own.AddN(0, k.Add[0])
	b.tokens.Store(Share(b.cfg.Budget, k.Total[0], k.Total[1], b.own.Total(0), b.x.Replicas, rand.Float64()))
	return nil
}

// Share is the fleet budget's rule: the retries one replica may spend until its next
// exchange, given the fleet's requests and retries in the window, the replica's own requests
// in the window, the number of replicas, and u uniform in [0, 1) to round a fractional share
// (up with probability its fraction). It is never negative: a rule that leaves nothing, or
// settings out of budget.RatioConfig's range that make it NaN, give 0; one beyond int64,
// math.MaxInt64.
func Share(cfg budget.RatioConfig, fleetRequests, fleetRetries, ownRequests int64, replicas int, u float64) int64 {
	ratio := cfg.Ratio
	if ratio == 0 {
		ratio = budget.DefaultRatio
	}
	perSecond := cfg.MinRetriesPerSecond
	switch perSecond {
	case retry.None:
		perSecond = 0
	case 0:
		perSecond = budget.DefaultMinRetriesPerSecond
	}
	left := ratio*float64(fleetRequests) + perSecond*ratioWindow(cfg).Seconds() - float64(fleetRetries)
	if !(left > 0) { // NaN too
		return 0
	}
	replicas = max(replicas, 1)
	fleetRequests = max(fleetRequests, 0)
	ownRequests = min(max(ownRequests, 0), fleetRequests)
	// In float64: the sums may pass the end of int64.
	share := left * (float64(ownRequests) + 1) / (float64(fleetRequests) + float64(replicas))
	if !(share < math.MaxInt64) { // beyond int64, +Inf, or NaN from an infinite left
		if math.IsNaN(share) {
			return 0
		}
		return math.MaxInt64
	}
	whole, frac := math.Modf(share)
	n := int64(whole)
	if u < frac {
		n++
	}
	return n
}
