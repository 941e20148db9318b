package hedge

import (
	"sync"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/lru"
)

// DefaultMaxKeys is how many destinations a [Group] keeps when GroupConfig.MaxKeys is zero,
// as breaker.DefaultMaxKeys.
const DefaultMaxKeys = 1024

// GroupConfig configures a [Group]. The zero GroupConfig gives every destination a Hedger
// with the zero Config's defaults.
type GroupConfig struct {
	// Hedge configures every destination's Hedger.
	Hedge Config
	// MaxKeys bounds how many Hedgers the group keeps; beyond it the least recently used is
	// forgotten (a destination seen again starts afresh: no latencies, a full budget). Zero
	// means DefaultMaxKeys; negative is invalid.
	MaxKeys int
}

// Group keeps one Hedger per destination, so that each destination's delay follows its own
// latencies and one slow host does not spend the hedges of the others: set it as
// retryhttp.Transport.Hedges (one per scheme+host+port, as breaker.Key names them) or give
// it to retrygrpc.WithHedging (one per target and method). The zero Group is one made by
// NewGroup with the zero GroupConfig. Safe for concurrent use; Hedger takes one lock.
type Group struct {
	zero    sync.Once
	hedgers lru.Cache[*Hedger]
}

// NewGroup returns an empty group, or an error wrapping ErrInvalidConfig that names the
// field out of range.
func NewGroup(cfg GroupConfig) (*Group, error) {
	g := new(Group)
	if err := g.configure(cfg); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *Group) configure(cfg GroupConfig) error {
	if cfg.MaxKeys < 0 {
		return invalid("MaxKeys %d out of range: must be positive, or 0 for the default %d", cfg.MaxKeys, DefaultMaxKeys)
	}
	hc := cfg.Hedge
	if err := hc.Validate(); err != nil {
		return err
	}
	g.hedgers.New = func(string) *Hedger {
		h, _ := New(hc) // validated above
		return h
	}
	g.hedgers.Max = cfg.MaxKeys
	if g.hedgers.Max == 0 {
		g.hedgers.Max = DefaultMaxKeys
	}
	return nil
}

// Hedger returns the Hedger of key, creating it when the group has none, and marks it the
// most recently used; a caller holding a forgotten one may go on using it. On a nil *Group
// it returns nil (no hedging), so that a group made only when configured may be set as it
// is. It implements retryhttp.HedgeGroup.
func (g *Group) Hedger(key string) retry.Hedger {
	if g == nil {
		return nil
	}
	g.zero.Do(func() {
		if g.hedgers.New == nil { // not made by NewGroup
			g.configure(GroupConfig{}) // the zero GroupConfig is valid
		}
	})
	return g.hedgers.Get(key)
}

// Len returns how many Hedgers the group keeps.
func (g *Group) Len() int { return g.hedgers.Len() }
