package ratelimit

import (
	"sync"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/lru"
)

// DefaultMaxKeys is how many destinations a [Group] keeps when GroupConfig.MaxKeys is zero,
// as breaker.DefaultMaxKeys.
const DefaultMaxKeys = 1024

// GroupConfig configures a [Group]. The zero GroupConfig is valid.
type GroupConfig struct {
	// Gate configures every gate of the group.
	Gate Config
	// MaxKeys bounds how many gates the group keeps; beyond it, the least recently used is
	// forgotten (a destination seen again starts knowing nothing). Zero means
	// DefaultMaxKeys; negative is invalid.
	MaxKeys int
}

// Group keeps one [Gate] per destination, created on its first use, so that each
// destination is paced to its own limit (for package retryhttp: one gate per
// scheme+host+port, as breaker.Key names them, e.g. "https://api.openai.com:443"). The
// zero Group is one made by NewGroup with the zero GroupConfig. Safe for concurrent use; a
// lookup takes one lock, and a gate that knows of no limit costs its callers nothing more.
type Group struct {
	zero  sync.Once // gives a zero Group the zero GroupConfig's defaults
	cfg   GroupConfig
	gates lru.Cache[*Gate]
}

// NewGroup returns an empty group, or an error wrapping ErrInvalidConfig that names the
// field out of range.
func NewGroup(cfg GroupConfig) (*Group, error) {
	if err := cfg.Gate.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxKeys < 0 {
		return nil, invalid("MaxKeys %d out of range: must be positive, or 0 for the default %d", cfg.MaxKeys, DefaultMaxKeys)
	}
	g := &Group{cfg: cfg}
	g.setUp()
	return g, nil
}

// setUp makes g's gate table from g.cfg, which is valid.
func (g *Group) setUp() {
	g.gates.Max, g.gates.New = g.cfg.MaxKeys, g.newGate
	if g.gates.Max == 0 {
		g.gates.Max = DefaultMaxKeys
	}
}

func (g *Group) newGate(string) *Gate {
	gate, _ := NewGate(g.cfg.Gate) // validated by NewGroup
	return gate
}

// Gate returns the gate of key, creating it when the group has none, and marks it the most
// recently used. Creating one beyond MaxKeys forgets the least recently used; a caller
// holding a forgotten gate may go on using it, and the group no longer counts it.
func (g *Group) Gate(key string) *Gate {
	g.zero.Do(func() {
		if g.gates.New == nil { // not made by NewGroup: the zero GroupConfig
			g.setUp()
		}
	})
	return g.gates.Get(key)
}

// RateGate returns Gate(key) as a retry.RateGate. On a nil *Group it returns nil (no gate),
// so that a group made only when configured may be used as it is.
func (g *Group) RateGate(key string) retry.RateGate {
	if g == nil {
		return nil
	}
	return g.Gate(key)
}

// Len returns how many gates the group keeps.
func (g *Group) Len() int { return g.gates.Len() }
