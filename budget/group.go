package budget

import (
	"sync"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/lru"
)

// DefaultMaxKeys is how many destinations a [Group] keeps when GroupConfig.MaxKeys is zero,
// as breaker.DefaultMaxKeys.
const DefaultMaxKeys = 1024

// GroupConfig configures a [Group]. The zero GroupConfig gives every destination a [Ratio]
// with the zero RatioConfig's defaults (10% of requests, 1 retry a second, 10 s window).
type GroupConfig struct {
	// Ratio configures every destination's Ratio budget, unless TokenBucket is set.
	Ratio RatioConfig
	// TokenBucket, when set, gives every destination a [TokenBucket] configured by it
	// instead of a Ratio; Ratio must then be the zero RatioConfig.
	TokenBucket *TokenBucketConfig
	// Quota, when set, gives every destination a [Quota] configured by it instead of a
	// Ratio (the per-destination default budget of packages retryhttp and retrygrpc);
	// Ratio must then be the zero RatioConfig, and TokenBucket nil.
	Quota *QuotaConfig
	// MaxKeys bounds how many budgets the group keeps; beyond it, the least recently used
	// is forgotten (a destination seen again starts with a fresh budget). Zero means
	// DefaultMaxKeys; negative is invalid.
	MaxKeys int
}

// Group keeps one retry budget per destination, so that retries to one sick host do not
// spend the budget of the others (for package retryhttp: one budget per scheme+host+port,
// as breaker.Key names them; set the group as retryhttp.Transport.Budgets). Each budget is
// a [Ratio], a [TokenBucket] or a [Quota], built from the group's config on the first
// request to its destination. The zero Group is one made by NewGroup with the zero GroupConfig. Safe for
// concurrent use; Budget takes one lock.
type Group struct {
	zero    sync.Once // gives a zero Group the zero GroupConfig's defaults
	budgets lru.Cache[retry.RetryBudget]
}

// NewGroup returns an empty group, or an error wrapping ErrInvalidConfig that names the
// field out of range, or says that more than one of Ratio, TokenBucket and Quota is set.
func NewGroup(cfg GroupConfig) (*Group, error) {
	g := new(Group)
	if err := g.configure(cfg); err != nil {
		return nil, err
	}
	return g, nil
}

// configure sets g up for cfg, or returns cfg's error.
func (g *Group) configure(cfg GroupConfig) error {
	switch {
	case cfg.MaxKeys < 0:
		return invalid("MaxKeys %d out of range: must be positive, or 0 for the default %d", cfg.MaxKeys, DefaultMaxKeys)
	case cfg.TokenBucket != nil && cfg.Quota != nil:
		return invalid("both TokenBucket %+v and Quota %+v are set: set one", *cfg.TokenBucket, *cfg.Quota)
	case cfg.Quota != nil:
		if cfg.Ratio != (RatioConfig{}) {
			return invalid("both Ratio %+v and Quota %+v are set: set one", cfg.Ratio, *cfg.Quota)
		}
		qc := *cfg.Quota
		if err := qc.Validate(); err != nil {
			return err
		}
		g.budgets.New = func(string) retry.RetryBudget {
			b, _ := NewQuota(qc) // validated above
			return b
		}
	case cfg.TokenBucket != nil:
		if cfg.Ratio != (RatioConfig{}) {
			return invalid("both Ratio %+v and TokenBucket %+v are set: set one", cfg.Ratio, *cfg.TokenBucket)
		}
		tc := *cfg.TokenBucket
		if err := tc.Validate(); err != nil {
			return err
		}
		g.budgets.New = func(string) retry.RetryBudget {
			b, _ := NewTokenBucket(tc) // validated above
			return b
		}
	default:
		rc := cfg.Ratio
		if err := rc.Validate(); err != nil {
			return err
		}
		g.budgets.New = func(string) retry.RetryBudget {
			b, _ := NewRatio(rc) // validated above
			return b
		}
	}
	g.budgets.Max = cfg.MaxKeys
	if g.budgets.Max == 0 {
		g.budgets.Max = DefaultMaxKeys
	}
	return nil
}

// Budget returns the budget of key (a *Ratio, *TokenBucket or *Quota), creating it when the group
// has none, and marks it the most recently used. Creating one beyond MaxKeys forgets the
// least recently used; a caller holding a forgotten budget may go on using it. It
// implements retryhttp.BudgetGroup. On a nil *Group it returns nil (no budget), so that a
// group made only when configured may be set as it is.
func (g *Group) Budget(key string) retry.RetryBudget {
	if g == nil {
		return nil
	}
	g.zero.Do(func() {
		if g.budgets.New == nil { // not made by NewGroup
			g.configure(GroupConfig{}) // the zero GroupConfig is valid
		}
	})
	return g.budgets.Get(key)
}

// Len returns how many budgets the group keeps.
func (g *Group) Len() int { return g.budgets.Len() }
