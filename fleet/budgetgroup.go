package fleet

import (
	"context"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/internal/lru"
)

// BudgetConfig configures a fleet [Budget] or [BudgetGroup].
type BudgetConfig struct {
	// Fleet says how to meet the fleet; its Store and Name are required.
	Fleet Config
	// Budget is the rule, as package budget's Ratio states it: the fleet's retries stay
	// within Ratio × requests + MinRetriesPerSecond × Window seconds over the Window (see
	// [Budget]). Its zero fields mean package budget's defaults: Ratio 0 is
	// budget.DefaultRatio (0.1), so a budget of the floor alone cannot be had (a Ratio of
	// 1e-9 comes close).
	Budget budget.RatioConfig
	// MinReplicas is the fewest replicas the budget is shared among: each replica's share
	// counts at least MinReplicas replicas in the fleet, so that at a cold start the first
	// replica to meet the store does not take the whole floor, and a replica that never saw
	// a view keeps to 1/MinReplicas of the rule while the store is out of reach. Set it to
	// the number of replicas you run; more than there are leaves part of the budget unused.
	// Zero means 1 (a process alone takes the whole rule: the retry command's case);
	// negative is invalid.
	MinReplicas int
	// MaxKeys bounds how many destinations a BudgetGroup keeps (one key, and one key per
	// exchange, each); beyond it the least recently used is forgotten. Zero means
	// DefaultMaxKeys; negative is invalid.
	MaxKeys int
}

func (c *BudgetConfig) validate() error {
	if err := c.Fleet.validate(); err != nil {
		return err
	}
	if err := c.Budget.Validate(); err != nil {
		return err
	}
	if c.MinReplicas < 0 {
		return invalid("MinReplicas %d out of range: must be positive, or 0 for 1", c.MinReplicas)
	}
	return validateMaxKeys(c.MaxKeys)
}

// rule is the BudgetRule of c's defaults applied.
func (c *BudgetConfig) rule() BudgetRule {
	r := BudgetRule{Ratio: c.Budget.Ratio, MinReplicas: max(c.MinReplicas, 1), GrantFor: c.Fleet.staleAfter()}
	if r.Ratio == 0 {
		r.Ratio = budget.DefaultRatio
	}
	switch perSecond := c.Budget.MinRetriesPerSecond; perSecond {
	case retry.None:
	case 0:
		r.Floor = budget.DefaultMinRetriesPerSecond * c.window().Seconds()
	default:
		r.Floor = perSecond * c.window().Seconds()
	}
	return r
}

func (c *BudgetConfig) window() time.Duration {
	if c.Budget.Window == 0 {
		return budget.DefaultWindow
	}
	return c.Budget.Window
}

// BudgetGroup keeps one fleet [Budget] per destination, all synced by one goroutine in one
// exchange per tick, so that retries to one sick host do not spend the budget of the others,
// fleet-wide. It implements retryhttp.BudgetGroup, so it can serve as
// retryhttp.Transport.Budgets (one budget per scheme, host and port) and as retrygrpc's
// WithBudgets (one per target). Create one with [NewBudgetGroup] and Close it when done.
// Safe for concurrent use.
type BudgetGroup struct {
	cfg    BudgetConfig
	rule   BudgetRule
	window time.Duration
	sync   *syncer
	keys   lru.Cache[*Budget]

	// Guarded by the syncer's lock:
	x  Exchange  // reused by every exchange
	bs []*Budget // the budgets of x.Keys
}

// NewBudgetGroup returns an empty group and starts its syncer, or returns an error wrapping
// ErrInvalidConfig (or budget.ErrInvalidConfig) that names the field out of range.
func NewBudgetGroup(cfg BudgetConfig) (*BudgetGroup, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	g := &BudgetGroup{cfg: cfg, rule: cfg.rule(), window: cfg.window()}
	g.keys = lru.Cache[*Budget]{Max: maxKeys(cfg.MaxKeys), New: g.newBudget}
	g.sync = newSyncer(cfg.Fleet, g.exchange)
	g.x = Exchange{Group: cfg.Fleet.Name + ":budget", Replica: g.sync.replica, Window: g.window, Budget: &g.rule}
	g.sync.start()
	return g, nil
}

// NewBudget returns a single fleet budget (a group's budget of key "") with its own syncer;
// Close it when done. The error is NewBudgetGroup's.
func NewBudget(cfg BudgetConfig) (*Budget, error) {
	g, err := NewBudgetGroup(cfg)
	if err != nil {
		return nil, err
	}
	b := g.Get("")
	b.owner = true
	return b, nil
}

// Get returns the budget of key (for retryhttp, breaker.Key of the URL; for retrygrpc, the
// target), creating it when the group has none. The group keeps at most MaxKeys; a new key
// beyond it forgets the least recently used.
func (g *BudgetGroup) Get(key string) *Budget { return g.keys.Get(key) }

// newBudget creates the budget of key, with no grant and the share of a replica that never
// saw a view.
func (g *BudgetGroup) newBudget(key string) *Budget {
	b := &Budget{g: g, key: key}
	b.own.Start(time.Now())
	b.setShare(Share(0, 0, 0, g.cfg.MinReplicas))
	return b
}

// Budget returns Get(key) as a retry.RetryBudget (retryhttp.BudgetGroup). On a nil
// *BudgetGroup it returns nil (no budget), so that a group made only when configured may be
// set as it is.
func (g *BudgetGroup) Budget(key string) retry.RetryBudget {
	if g == nil {
		return nil
	}
	return g.Get(key)
}

// SyncNow makes one exchange now, bounded by ctx and Config.Timeout; a short-lived process
// calls it once before its first attempt. Its error (also counted in Stats) leaves
// decisions local only. After Close it makes no exchange and returns ErrClosed.
func (g *BudgetGroup) SyncNow(ctx context.Context) error { return g.sync.run(ctx) }

// Stats returns the group's exchange counts and staleness.
func (g *BudgetGroup) Stats() Stats { return g.sync.stats() }

// Close stops the syncer, waits for it, and flushes the last counts in one exchange bounded
// by Config.Timeout, which also gives this replica's grants back; it returns that
// exchange's error. The budgets keep working, by their shares, after Close. Close is
// idempotent.
func (g *BudgetGroup) Close() error { return g.sync.close() }

// exchange is the syncer's: every key's counts to the store, its grant back. On error the
// counts are sent again at the next exchange.
func (g *BudgetGroup) exchange(ctx context.Context, final bool) error {
	x := &g.x
	x.Keys, g.bs = x.Keys[:0], g.bs[:0]
	g.keys.Range(func(_ string, b *Budget) {
		g.bs = append(g.bs, b)
		x.Keys = append(x.Keys, b.take())
	})
	x.Final = final
	err := g.cfg.Fleet.Store.Exchange(ctx, x)
	if err == nil {
		for i, b := range g.bs {
			b.apply(&x.Keys[i], x.Replicas)
		}
	}
	clear(g.bs) // keep no forgotten budget alive
	return err
}
