package fleet

import (
	"time"

	"github.com/retrykit/retry/breaker"
)

// Defaults of an [OpenRule]'s zero fields, and of BreakerConfig.MaxKeys.
const (
	// DefaultFleetFailureRate is the share of the fleet's calls in the window that, failed,
	// opens the breaker fleet-wide.
	DefaultFleetFailureRate = 0.5
	// DefaultMinFleetCalls is the fewest calls the fleet must make in the window for the rule
	// to apply.
	DefaultMinFleetCalls = 20
	// DefaultFleetWindow is the rule's sliding window: short, so that a fleet with traffic
	// opens within about a second of an outage (with a window of 10 s, failures must first
	// outnumber 5 s of past successes). A sparse fleet (cron jobs) needs a longer one.
	DefaultFleetWindow = 2 * time.Second
	// MinFleetWindow is the shortest OpenRule.FleetWindow accepted.
	MinFleetWindow = 100 * time.Millisecond
	// DefaultMaxKeys is how many destinations a [BreakerGroup] or [BudgetGroup] keeps when
	// MaxKeys is zero.
	DefaultMaxKeys = 1024
)

// OpenRule is how the fleet opens a breaker for every replica: when, over the last
// FleetWindow, the fleet's calls number at least MinFleetCalls and at least
// FleetFailureRate of them failed. With the defaults, at least 20 calls in 2 s (a fleet
// making 10 calls a second or more) of which half failed. A fleet with less traffic than
// that never meets the rule: give it a longer FleetWindow (the retry command uses a
// minute). The rule is the only way a breaker opens fleet-wide, and it cannot be turned
// off: one replica's own breaker tripping opens that replica alone (for a breaker that opens
// locally only, use package breaker). The zero OpenRule is valid and means the defaults.
type OpenRule struct {
	// FleetFailureRate is the share of the fleet's calls in the window that, failed, opens the
	// breaker fleet-wide: a ratio in (0, 1]. Zero means DefaultFleetFailureRate.
	FleetFailureRate float64
	// MinFleetCalls is the fewest calls the fleet must make in the window for the rule to
	// apply: 1 to 2^31-1. Zero means DefaultMinFleetCalls.
	MinFleetCalls int
	// FleetWindow is the rule's sliding window, in ten buckets by the store's clock: a call
	// counts for between 0.9 × FleetWindow and FleetWindow after its exchange. Zero means
	// DefaultFleetWindow; otherwise at least MinFleetWindow.
	FleetWindow time.Duration
}

func (r *OpenRule) validate() error {
	switch {
	case !(r.FleetFailureRate >= 0 && r.FleetFailureRate <= 1):
		return invalid("OpenRule.FleetFailureRate %v out of range: must be in (0, 1], or 0 for the default %v", r.FleetFailureRate, DefaultFleetFailureRate)
	case r.MinFleetCalls < 0 || r.MinFleetCalls > 1<<31-1:
		return invalid("OpenRule.MinFleetCalls %d out of range: must be 1 to 2147483647, or 0 for the default %d", r.MinFleetCalls, DefaultMinFleetCalls)
	case r.FleetWindow < 0 || (r.FleetWindow > 0 && r.FleetWindow < MinFleetWindow):
		return invalid("OpenRule.FleetWindow %v out of range: must be at least %v, or 0 for the default %v", r.FleetWindow, MinFleetWindow, DefaultFleetWindow)
	}
	return nil
}

// met reports whether the fleet's calls and failures in the window meet the rule.
func (r *OpenRule) met(total [2]int64) bool {
	rate, least := r.FleetFailureRate, int64(r.MinFleetCalls)
	if rate == 0 {
		rate = DefaultFleetFailureRate
	}
	if least == 0 {
		least = DefaultMinFleetCalls
	}
	return total[0] >= least && float64(total[1]) >= rate*float64(total[0])
}

func (r *OpenRule) window() time.Duration {
	if r.FleetWindow == 0 {
		return DefaultFleetWindow
	}
	return r.FleetWindow
}

// BreakerConfig configures a fleet [Breaker] or [BreakerGroup].
type BreakerConfig struct {
	// Fleet says how to meet the fleet; its Store and Name are required.
	Fleet Config
	// Breaker configures each replica's local breaker (package breaker: consecutive
	// failures, failure rate, open timeout ...). Some of its settings are the fleet's too:
	// OpenTimeout (default 30 s) is how long a fleet-wide OPEN lasts and how often the fleet
	// makes a trial call, unless a server's wait or OpenTimeoutMultiplier lengthens it within
	// MinOpenTimeout and MaxOpenTimeout (breaker.Config.OpenTime; see the package
	// documentation, "Open time"), and TrialTimeout (default 1 min) how long the fleet's one
	// trial call may run: no other replica is elected for a trial while it may. Its OnStateChange sees
	// the local breaker's changes only, among them its return to CLOSED
	// (breaker.Breaker.Reset) when the fleet closes; see OnFleetStateChange for the fleet's.
	Breaker breaker.Config
	// OpenRule is how the fleet opens the breaker for every replica; the zero OpenRule means
	// its defaults.
	OpenRule OpenRule
	// MaxKeys bounds how many destinations a BreakerGroup keeps (one key, and one key per
	// exchange, each); beyond it the least recently used is forgotten. Zero means
	// DefaultMaxKeys; negative is invalid.
	MaxKeys int
	// OnFleetStateChange, when set, is called each time the fleet's state of a key changes as
	// this replica learns it from the store: CLOSED to OPEN (the fleet's rule was met),
	// OPEN to HALF_OPEN (the open timeout ended), HALF_OPEN to CLOSED or OPEN (the trial
	// call's result), with the key (BreakerGroup.Get's; "" for NewBreaker's) and the local
	// time the store's reply came. The calls come in order, one at a time, with no lock of
	// the group held (it may call the group, SyncNow included), on the goroutine whose
	// exchange brought the change, so it must not block for long.
	OnFleetStateChange func(key string, from, to breaker.State, at time.Time)
}

func (c *BreakerConfig) validate() error {
	if err := c.Fleet.validate(); err != nil {
		return err
	}
	if err := c.Breaker.Validate(); err != nil {
		return err
	}
	if err := c.OpenRule.validate(); err != nil {
		return err
	}
	return validateMaxKeys(c.MaxKeys)
}

// validateMaxKeys checks a group's MaxKeys.
func validateMaxKeys(n int) error {
	if n < 0 {
		return invalid("MaxKeys %d out of range: must be positive, or 0 for the default %d", n, DefaultMaxKeys)
	}
	return nil
}

func maxKeys(n int) int {
	if n == 0 {
		return DefaultMaxKeys
	}
	return n
}

func (c *BreakerConfig) openTimeout() time.Duration {
	if c.Breaker.OpenTimeout == 0 {
		return breaker.DefaultOpenTimeout
	}
	return c.Breaker.OpenTimeout
}

func (c *BreakerConfig) trialTimeout() time.Duration {
	if c.Breaker.TrialTimeout == 0 {
		return breaker.DefaultTrialTimeout
	}
	return c.Breaker.TrialTimeout
}
