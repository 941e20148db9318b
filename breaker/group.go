package breaker

import (
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/lru"
)

// DefaultMaxKeys is how many destinations a [Group] keeps when GroupConfig.MaxKeys is zero.
const DefaultMaxKeys = 1024

// GroupConfig configures a [Group].
type GroupConfig struct {
	// Breaker configures every breaker of the group. Its OnStateChange, when set, is called
	// as well as the group's.
	Breaker Config
	// MaxKeys bounds how many breakers the group keeps; beyond it, the least recently used
	// is forgotten (a destination seen again starts CLOSED). Zero means DefaultMaxKeys;
	// negative is invalid.
	MaxKeys int
	// OnStateChange, when set, is called after every change of state of any breaker of the
	// group, with its key, as Config.OnStateChange is (outside any lock).
	OnStateChange func(key string, from, to State, at time.Time)
}

// Group keeps one [Breaker] per destination, so that one failing host does not open the
// circuit for the others (for package retryhttp: one breaker per scheme+host+port, see
// [Key]). The zero Group is one made by NewGroup with the zero GroupConfig. It is safe for
// concurrent use.
type Group struct {
	zero     sync.Once // gives a zero Group the zero GroupConfig's defaults
	cfg      GroupConfig
	breakers lru.Cache[*Breaker]
}

// NewGroup returns an empty group, or an error wrapping ErrInvalidConfig that names the
// field out of range.
func NewGroup(cfg GroupConfig) (*Group, error) {
	if err := cfg.Breaker.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxKeys < 0 {
		return nil, invalid("MaxKeys %d out of range: must be positive, or 0 for the default %d", cfg.MaxKeys, DefaultMaxKeys)
	}
	g := &Group{cfg: cfg}
	g.setUp()
	return g, nil
}

// setUp makes g's breaker table from g.cfg, which is valid.
func (g *Group) setUp() {
	g.breakers.Max, g.breakers.New = g.cfg.MaxKeys, g.newBreaker
	if g.breakers.Max == 0 {
		g.breakers.Max = DefaultMaxKeys
	}
}

// Get returns the breaker of key, creating it (CLOSED) when the group has none, and marks it
// the most recently used. Creating one beyond MaxKeys forgets the least recently used. A
// caller holding a forgotten breaker may go on using it; the group no longer counts it.
func (g *Group) Get(key string) *Breaker {
	g.zero.Do(func() {
		if g.breakers.New == nil { // not made by NewGroup: the zero GroupConfig
			g.setUp()
		}
	})
	return g.breakers.Get(key)
}

// newBreaker creates the breaker of key, whose state changes also go to the group's hook.
func (g *Group) newBreaker(key string) *Breaker {
	cfg := g.cfg.Breaker
	if hook := g.cfg.OnStateChange; hook != nil {
		own := cfg.OnStateChange
		cfg.OnStateChange = func(from, to State, at time.Time) {
			if own != nil {
				own(from, to, at)
			}
			hook(key, from, to, at)
		}
	}
	return &Breaker{cfg: cfg, policy: newPolicy(cfg)}
}

// Len returns how many breakers the group keeps.
func (g *Group) Len() int { return g.breakers.Len() }

// Key returns the destination key of u for a [Group]: lower-case scheme, host and port,
// with the scheme's default port (80 for http, 443 for https) when u names none, e.g.
// "https://example.com:443". Paths, queries and credentials are left out. Key(nil) is "".
func Key(u *url.URL) string {
	if u == nil {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Breaker returns Get(key) as a retry.CircuitBreaker, so that a Group serves as
// retryhttp.Transport.Breakers (a retryhttp.BreakerGroup). On a nil *Group it returns nil
// (no breaker), so that a group made only when configured may be set as it is.
func (g *Group) Breaker(key string) retry.CircuitBreaker {
	if g == nil {
		return nil
	}
	return g.Get(key)
}
