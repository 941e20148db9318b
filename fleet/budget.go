package fleet

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/window"
)

// Kinds of events a Budget's own window counts.
const (
	kindRequests = 0
	kindRetries  = 1
)

// Budget is a retry budget shared by a fleet (see the package documentation). It implements
// retry.RetryBudget, retry.ResendCounter and retry.Reporter. Get one from [NewBudget] or
// [BudgetGroup.Get]. Safe for concurrent use.
//
// At every exchange the store grants this replica, by the rule of [Grant], the retries it may
// spend until its next exchange: its [Share] of what the fleet's rule leaves, never more than
// the grants of the other replicas leave, so that the fleet's retries and grants together
// stay within Ratio × (the fleet's requests in the window) + the floor. While the view is
// stale it decides alone, by its share of the rule: its retries in the window stay within
// Ratio × (its own requests in the window) + floor × Share, the share of its last view (or,
// before any, 1/MinReplicas), so that a fleet cut off from its store still keeps to the
// fleet's rule, not one floor per replica.
type Budget struct {
	g     *BudgetGroup
	key   string
	owner bool // made by NewBudget: Close closes the group

	tokens   atomic.Int64  // retries this replica may spend until the next exchange
	requests atomic.Int64  // since the last exchange
	retries  atomic.Int64  // since the last exchange
	share    atomic.Uint64 // Share's float64 bits

	mu  sync.Mutex
	own window.Window // this replica's requests and retries in the window

	// Guarded by the syncer's lock (one exchange at a time):
	sent, unsent [2]int64 // Key.Counts and Key.Unsent: requests and retries
	ownRequests  int64    // Key.Own of the exchange in flight
}

// AllowRetry asks to spend one retry (retry.RetryBudget): from this replica's grant while the
// fleet view is fresh, else by its share of the rule. It never waits on the store.
func (b *Budget) AllowRetry() bool {
	if !b.g.sync.fresh.Load() {
		return b.allowAlone()
	}
	for {
		t := b.tokens.Load()
		if t <= 0 {
			return false
		}
		if b.tokens.CompareAndSwap(t, t-1) {
			b.retries.Add(1)
			b.count(kindRetries, 1)
			return true
		}
	}
}

// allowAlone is AllowRetry while the view is stale: the rule, with this replica's own
// requests and its share of the floor.
func (b *Budget) allowAlone() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance()
	rule := &b.g.rule
	allowed := float64(rule.Ratio*float64(b.own.Total(kindRequests))) + rule.Floor*b.Share()
	// The tolerance keeps a limit meant to be whole at that whole number, as budget.Ratio's.
	if float64(b.own.Total(kindRetries)+1) > allowed+1e-9 {
		return false
	}
	b.own.Add(kindRetries)
	b.retries.Add(1)
	return true
}

// Done counts an attempt that ran as a request (retry.RetryBudget), for the fleet and for
// this replica's own window, whatever its result: a throttled attempt
// (retry.ResultThrottled) counts as a request, as budget.Ratio counts it.
func (b *Budget) Done(bool, retry.Result) {
	b.requests.Add(1)
	b.count(kindRequests, 1)
}

// Resent counts n exchanges that a transport re-sent by itself within an attempt
// (retry.ResendCounter) as n requests and n retries spent: retries already made, so this
// replica's grant until the next exchange shrinks by n, and the fleet hears of them then. n
// below 1 counts nothing.
func (b *Budget) Resent(n int) {
	if n < 1 {
		return
	}
	b.requests.Add(int64(n))
	b.retries.Add(int64(n))
	b.tokens.Add(-int64(n))
	b.count(kindRequests, int64(n))
	b.count(kindRetries, int64(n))
}

// count adds n events of kind k to this replica's own window.
func (b *Budget) count(k int, n int64) {
	b.mu.Lock()
	b.advance()
	b.own.AddN(k, n)
	b.mu.Unlock()
}

// advance slides the own window to now; b.mu is held.
func (b *Budget) advance() {
	b.own.Advance(time.Since(b.own.Epoch()), b.g.window)
}

// FleetStatus returns the fleet view's age at now (ok false when there has never been one)
// and whether it is stale: the store is out of reach and decisions are local only.
func (b *Budget) FleetStatus(now time.Time) (age time.Duration, ok, stale bool) {
	return b.g.sync.status(now)
}

// RecordAttrs returns the budget's fields of a decision record at now (retry.Reporter): the
// fleet view's "fleet_age_ms" and "fleet_stale" (see [Budget.FleetStatus]), and
// "fleet_share", the share of the fleet's budget in use ([Budget.Share], to three
// significant digits).
func (b *Budget) RecordAttrs(now time.Time) [4]slog.Attr {
	age, stale := b.g.sync.recordAttrs(now)
	return [4]slog.Attr{age, stale, slog.Float64("fleet_share", threeDigits(b.Share()))}
}

// threeDigits rounds a share in (0, 1] to three significant digits (0.598, 0.00167), without
// allocating.
func threeDigits(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	scale := math.Pow10(2 - int(math.Floor(math.Log10(x))))
	return math.Round(x*scale) / scale
}

// Tokens returns how many retries this replica may still spend before the next exchange
// while the fleet view is fresh: what is left of its last grant.
func (b *Budget) Tokens() int64 { return max(0, b.tokens.Load()) }

// Share returns this replica's share of the fleet's budget in use, in (0, 1]: [Share] of its
// last view, the weight of its grants, and while the view is stale the part of the rule's
// floor it keeps to; before any view, 1/BudgetConfig.MinReplicas.
func (b *Budget) Share() float64 { return math.Float64frombits(b.share.Load()) }

// SyncNow makes one exchange now for the budget's group; see [BudgetGroup.SyncNow].
func (b *Budget) SyncNow(ctx context.Context) error { return b.g.SyncNow(ctx) }

// Stats returns the exchange counts of the budget's group.
func (b *Budget) Stats() Stats { return b.g.Stats() }

// Close closes the syncer of a budget made by [NewBudget] (see [BudgetGroup.Close]); for a
// budget of a group, close the group instead: Close then does nothing and returns nil.
func (b *Budget) Close() error {
	if !b.owner {
		return nil
	}
	return b.g.Close()
}

// take returns the key's part of the next exchange: its counts, its own requests in the
// window, and a draw to round its grant.
func (b *Budget) take() Key {
	add := [2]int64{b.requests.Swap(0), b.retries.Swap(0)}
	b.sent = [2]int64{b.sent[0] + add[0], b.sent[1] + add[1]}
	b.unsent = [2]int64{b.unsent[0] + add[0], b.unsent[1] + add[1]}
	if b.sent[0] >= newBaseline {
		b.sent = b.unsent
	}
	b.mu.Lock()
	b.advance()
	b.ownRequests = b.own.Total(kindRequests)
	b.mu.Unlock()
	return Key{Name: b.key, Counts: b.sent, Unsent: b.unsent, Own: b.ownRequests, Draw: rand.Float64()}
}

// apply takes the grant of a successful exchange: less the retries spent from the last grant
// while the exchange was in flight, which the store has not heard of and no longer counts
// as granted.
func (b *Budget) apply(k *Key, replicas int) {
	b.unsent = [2]int64{}
	b.tokens.Store(k.Grant - b.retries.Load())
	b.setShare(Share(k.Total[0], b.ownRequests, replicas, b.g.cfg.MinReplicas))
}

func (b *Budget) setShare(s float64) { b.share.Store(math.Float64bits(s)) }
