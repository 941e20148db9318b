package fleet

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Defaults of a [Config]'s zero fields.
const (
	// DefaultInterval is the time between two exchanges with the store.
	DefaultInterval = 500 * time.Millisecond
)

// ErrInvalidConfig is wrapped by every configuration error of this package's constructors.
var ErrInvalidConfig = errors.New("fleet: invalid config")

// Config says how a fleet object meets its fleet: through which store, under which name, how
// often.
type Config struct {
	// Store is where the fleet meets; required.
	Store Store
	// Name names what the fleet shares (a service, a job): every replica using the same
	// Store and Name shares one breaker (per destination) and one budget (per destination).
	// The store sees it in Exchange.Group as NAME + ":breaker" for breakers and NAME +
	// ":budget" for budgets, so a breaker and a budget may share a Name. Required; at most
	// 200 bytes, with no '{' or '}': a store may put it in a key's hash tag (redisfleet puts
	// "{NAME:breaker}" in every key of a group, so that Redis Cluster keeps them in one slot),
	// which a brace would end early or leave empty.
	Name string
	// Replica names this process in the fleet; "" means hostname-pid-random.
	Replica string
	// Interval is the time between two exchanges with the store, each drawn uniformly in
	// [0.8, 1.2) × Interval so that replicas do not meet the store in step. Zero means
	// DefaultInterval; otherwise at least 10 ms.
	Interval time.Duration
	// Timeout bounds one exchange with the store (and SyncNow's and Close's). Zero means
	// Interval; otherwise positive.
	Timeout time.Duration
	// StaleAfter is how old the fleet view may grow (no exchange succeeding) before
	// decisions become local only, counted from the start of the exchange that brought it:
	// they do so on time, even while an exchange still waits on a frozen store (so a Timeout
	// above StaleAfter leaves decisions local while replies are that slow). Zero means
	// 3 × Interval; otherwise at least Interval.
	StaleAfter time.Duration
	// OnStale, when set, is called each time the fleet view becomes stale (stale true, with
	// the store's last error) and each time it comes back (false, nil), in that order, one
	// call at a time, with no lock of the fleet object held: it may call SyncNow (the call
	// that this brings about, if any, follows right after it returns, on the same goroutine).
	// It runs on the goroutine whose exchange brought the change (the syncer's, or a SyncNow
	// or Close caller's), so it must not block for long. Each fleet object (a Breaker or
	// Budget made alone, or a group) has its own view and calls it for itself: a Config
	// shared by a BreakerGroup and a Budget has OnStale called once by each.
	OnStale func(stale bool, err error)
}

func (c *Config) validate() error {
	switch {
	case c.Store == nil:
		return invalid("Store is nil: set a store, such as a *MemoryStore or a redisfleet.Store")
	case c.Name == "" || len(c.Name) > 200:
		return invalid("Name %q: must be 1 to 200 bytes", c.Name)
	case strings.ContainsAny(c.Name, "{}"):
		return invalid("Name %q: must not contain '{' or '}' (they would break the Redis Cluster hash tag that keeps a group's keys in one slot)", c.Name)
	case c.Interval < 0 || (c.Interval > 0 && c.Interval < 10*time.Millisecond):
		return invalid("Interval %v out of range: must be at least 10ms, or 0 for the default %v", c.Interval, DefaultInterval)
	case c.Timeout < 0:
		return invalid("Timeout %v out of range: must be positive, or 0 for the Interval", c.Timeout)
	case c.StaleAfter < 0 || (c.StaleAfter > 0 && c.StaleAfter < c.interval()):
		return invalid("StaleAfter %v out of range: must be at least the Interval %v, or 0 for 3 × Interval", c.StaleAfter, c.interval())
	}
	return nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
}

func (c *Config) interval() time.Duration {
	if c.Interval == 0 {
		return DefaultInterval
	}
	return c.Interval
}

func (c *Config) timeout() time.Duration {
	if c.Timeout == 0 {
		return c.interval()
	}
	return c.Timeout
}

func (c *Config) staleAfter() time.Duration {
	if c.StaleAfter == 0 {
		return 3 * c.interval()
	}
	return c.StaleAfter
}

func (c *Config) replica() string {
	if c.Replica != "" {
		return c.Replica
	}
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return host + "-" + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}
