package breaker

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/window"
)

// Defaults of a [Config]'s zero fields.
const (
	// DefaultConsecutiveFailures is how many failures in a row open a CLOSED breaker.
	DefaultConsecutiveFailures = 3
	// DefaultOpenTimeout is how long a breaker stays OPEN before it admits a trial call.
	DefaultOpenTimeout = 30 * time.Second
	// DefaultTrialTimeout is how long HALF_OPEN waits for a trial call's result before
	// presuming it lost: twice retry.DefaultTimeout, so longer than any attempt of a retry
	// loop under the default policy.
	DefaultTrialTimeout = time.Minute
	// DefaultHalfOpenCalls is how many trial calls HALF_OPEN admits.
	DefaultHalfOpenCalls = 1
	// DefaultMinCalls is the least number of calls in the window for the failure-rate rule
	// to open the breaker.
	DefaultMinCalls = 10
	// DefaultWindow is the failure-rate rule's sliding window.
	DefaultWindow = time.Minute
	// DefaultMaxOpenTimeout is the longest open time, however often the breaker opens again
	// and whatever wait a server asks for: Envoy's default max_ejection_time.
	DefaultMaxOpenTimeout = 5 * time.Minute
	// DefaultOpenTimeoutMultiplier is how much longer each consecutive opening lasts than the
	// one before: 1, a fixed open time.
	DefaultOpenTimeoutMultiplier = 1.0
	// MaxOpenTimeoutMultiplier is the largest Config.OpenTimeoutMultiplier accepted.
	MaxOpenTimeoutMultiplier = 1000.0
)

// windowBuckets is how many buckets the failure-rate window has; MinWindow keeps each at
// least a millisecond wide.
const windowBuckets = window.Buckets

// MinWindow is the shortest Config.Window accepted: ten buckets of a millisecond.
const MinWindow = windowBuckets * time.Millisecond

// ErrInvalidConfig is wrapped by every error of [New], [Config.Validate] and [NewGroup].
var ErrInvalidConfig = errors.New("breaker: invalid config")

// Config configures a [Breaker]. The zero Config is valid: it opens after
// DefaultConsecutiveFailures failures in a row, stays open DefaultOpenTimeout, and closes
// again after one successful trial call. Zero fields take the defaults above.
type Config struct {
	// ConsecutiveFailures is how many failures in a row open a CLOSED breaker;
	// the allowed range is 1 to 2^31-1. Zero means DefaultConsecutiveFailures when
	// FailureRate is zero, and no consecutive-failure rule when FailureRate is set (set both
	// to use both rules).
	ConsecutiveFailures int
	// FailureRate, when above zero, also opens a CLOSED breaker when failures make up at
	// least this share of the calls counted in the last Window, once there are at least
	// MinCalls of them. It is a ratio in (0, 1]; zero turns the rule off.
	FailureRate float64
	// MinCalls is the least number of calls in the window before FailureRate applies. Zero
	// means DefaultMinCalls; the allowed range is 1 to 2^31-1. Only used with FailureRate.
	MinCalls int
	// Window is the failure-rate rule's sliding window, counted in ten buckets: a call
	// counts for between 0.9×Window and Window after it ends. Zero means DefaultWindow;
	// otherwise at least MinWindow. Only used with FailureRate.
	Window time.Duration
	// OpenTimeout is how long the breaker stays OPEN before admitting a trial call, unless
	// the failure that opened it asked for a longer wait or OpenTimeoutMultiplier lengthens
	// it (see [Config.OpenTime]). Zero means DefaultOpenTimeout; negative is invalid. It does
	// not bound the trial calls: a trial call may take longer (see TrialTimeout).
	OpenTimeout time.Duration
	// OpenTimeoutMultiplier lengthens the open time each time the breaker opens again before
	// it has stayed CLOSED as long as it was last OPEN (a trial call failed, or the service
	// failed again soon after it closed): the n-th such opening in a row lasts
	// OpenTimeout × OpenTimeoutMultiplier^(n-1), at most MaxOpenTimeout, as
	// resilience4j's IntervalFunction.ofExponentialBackoff does. Zero means
	// DefaultOpenTimeoutMultiplier (1: the same open time every time); otherwise from 1 to
	// MaxOpenTimeoutMultiplier.
	OpenTimeoutMultiplier float64
	// MaxOpenTimeout bounds the open time, however often the breaker opens again and
	// whatever wait a server asks for. Zero means the longer of DefaultMaxOpenTimeout and
	// OpenTimeout; otherwise at least OpenTimeout.
	MaxOpenTimeout time.Duration
	// MinOpenTimeout is the shortest open time that the wait of the failure that opened the
	// breaker may set (retry.RetryAfterReceiver: a Retry-After): a shorter wait counts as
	// MinOpenTimeout. Zero means OpenTimeout, so that a server's wait lengthens the open
	// time and never shortens it; otherwise from 1 ns to OpenTimeout.
	MinOpenTimeout time.Duration
	// TrialTimeout is how long HALF_OPEN waits for a trial call's result before presuming
	// the call lost (its caller will never report it): the call then stops counting against
	// HalfOpenCalls, so that a new trial call may take its place. Set it longer than the
	// slowest call you expect (a retry loop's attempts are bounded by its policy's Timeout
	// and AttemptTimeout). A result that does come, however late, counts as long as the
	// breaker is still in the HALF_OPEN episode that admitted the call: a slow success closes
	// it. Zero means DefaultTrialTimeout (1 min); negative is invalid.
	TrialTimeout time.Duration
	// OpenJitter spreads the open time of a fleet of clients so they do not probe a
	// recovering service in step: each time the breaker opens it stays open for
	// OpenTime × (1 + OpenJitter×u), u uniform in [0, 1) (math/rand/v2), OpenTime being
	// [Config.OpenTime]'s (OpenTimeout the first time). A ratio in [0, 1]; zero means no
	// jitter.
	OpenJitter float64
	// HalfOpenCalls is how many trial calls HALF_OPEN admits: trial calls in flight plus
	// trial successes never exceed it, so it bounds the trial calls running at once; every
	// other call is refused at once. A trial reported as ignored (ended by the caller's own
	// cancellation) or presumed lost after TrialTimeout gives its place back. Zero means
	// DefaultHalfOpenCalls; the allowed range is 1 to 2^31-1.
	HalfOpenCalls int
	// SuccessThreshold is how many trial successes close a HALF_OPEN breaker; any trial
	// failure opens it again. Zero means HalfOpenCalls (every trial must succeed); the
	// allowed range is 1 to HalfOpenCalls.
	SuccessThreshold int
	// Classifier classifies the errors of calls run by [Breaker.Execute], as
	// retry.Policy.Classifier does for a retry loop; nil means retry's default rules (see
	// retry.Policy.Classify). Retryable and unknown outcomes are failures, successes and
	// permanent failures are successes. It is not used by Done, whose caller classifies.
	Classifier func(retry.Outcome) retry.Class
	// OnStateChange, when set, is called after every change of state, with the old and new
	// states and the time of the change, on the goroutine whose call caused it and outside
	// any lock of the breaker (so it may call the breaker). Calls caused by different
	// goroutines may run concurrently and, when changes race, out of order; the times order
	// them.
	OnStateChange func(from, to State, at time.Time)
}

// Validate reports whether c is usable: nil, or an error wrapping ErrInvalidConfig that names
// the first field out of range, its value and what is allowed.
func (c *Config) Validate() error {
	switch {
	case c.ConsecutiveFailures < 0 || c.ConsecutiveFailures > math.MaxInt32:
		return invalid("ConsecutiveFailures %d out of range: must be 1 to 2147483647, or 0 for the default", c.ConsecutiveFailures)
	case !(c.FailureRate >= 0 && c.FailureRate <= 1):
		return invalid("FailureRate %v out of range: must be in (0, 1], or 0 for no failure-rate rule", c.FailureRate)
	case c.MinCalls < 0 || c.MinCalls > math.MaxInt32:
		return invalid("MinCalls %d out of range: must be 1 to 2147483647, or 0 for the default %d", c.MinCalls, DefaultMinCalls)
	case c.Window < 0 || (c.Window > 0 && c.Window < MinWindow):
		return invalid("Window %v out of range: must be at least %v, or 0 for the default %v", c.Window, MinWindow, DefaultWindow)
	case c.OpenTimeout < 0:
		return invalid("OpenTimeout %v out of range: must be positive, or 0 for the default %v", c.OpenTimeout, DefaultOpenTimeout)
	case !(c.OpenTimeoutMultiplier == 0 || c.OpenTimeoutMultiplier >= 1 && c.OpenTimeoutMultiplier <= MaxOpenTimeoutMultiplier):
		return invalid("OpenTimeoutMultiplier %v out of range: must be from 1 to %v, or 0 for the default %v",
			c.OpenTimeoutMultiplier, MaxOpenTimeoutMultiplier, DefaultOpenTimeoutMultiplier)
	case c.MaxOpenTimeout < 0 || c.MaxOpenTimeout > 0 && c.MaxOpenTimeout < c.openTimeout():
		return invalid("MaxOpenTimeout %v out of range: must be at least OpenTimeout (%v), or 0 for the longer of %v and OpenTimeout",
			c.MaxOpenTimeout, c.openTimeout(), DefaultMaxOpenTimeout)
	case c.MinOpenTimeout < 0 || c.MinOpenTimeout > c.openTimeout():
		return invalid("MinOpenTimeout %v out of range: must be from 1ns to OpenTimeout (%v), or 0 for OpenTimeout",
			c.MinOpenTimeout, c.openTimeout())
	case c.TrialTimeout < 0:
		return invalid("TrialTimeout %v out of range: must be positive, or 0 for the default %v", c.TrialTimeout, DefaultTrialTimeout)
	case !(c.OpenJitter >= 0 && c.OpenJitter <= 1):
		return invalid("OpenJitter %v out of range: must be in [0, 1]", c.OpenJitter)
	case c.HalfOpenCalls < 0 || c.HalfOpenCalls > math.MaxInt32:
		return invalid("HalfOpenCalls %d out of range: must be 1 to 2147483647, or 0 for the default %d", c.HalfOpenCalls, DefaultHalfOpenCalls)
	case c.SuccessThreshold < 0 || c.SuccessThreshold > c.halfOpenCalls():
		return invalid("SuccessThreshold %d out of range: must be 1 to HalfOpenCalls (%d), or 0 for HalfOpenCalls",
			c.SuccessThreshold, c.halfOpenCalls())
	}
	return nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
}

// The accessors below give the value in force for each field, defaults applied.

// consecutiveFailures is 0 when the consecutive-failure rule is off.
func (c *Config) consecutiveFailures() int {
	if c.ConsecutiveFailures == 0 && c.FailureRate == 0 {
		return DefaultConsecutiveFailures
	}
	return c.ConsecutiveFailures
}

func (c *Config) minCalls() int {
	if c.MinCalls == 0 {
		return DefaultMinCalls
	}
	return c.MinCalls
}

func (c *Config) window() time.Duration {
	if c.Window == 0 {
		return DefaultWindow
	}
	return c.Window
}

func (c *Config) openTimeout() time.Duration {
	if c.OpenTimeout == 0 {
		return DefaultOpenTimeout
	}
	return c.OpenTimeout
}

// OpenTime returns the time that c keeps a breaker OPEN, before OpenJitter, when it opens
// for the openings-th time in a row (1 for an opening after the breaker stayed CLOSED as
// long as it was last OPEN, or for its first), the failure that opened it having asked
// for a wait of retryAfter (0 for none):
//
//	base     = OpenTimeout, or retryAfter within [MinOpenTimeout, MaxOpenTimeout] when positive
//	OpenTime = min(MaxOpenTimeout, base × OpenTimeoutMultiplier^(openings-1))
//
// It is never below MinOpenTimeout nor above MaxOpenTimeout, and never shorter for more
// openings in a row. An openings below 1 counts as 1. c must be valid (see Validate).
func (c *Config) OpenTime(openings int, retryAfter time.Duration) time.Duration {
	base, ceiling := c.openTimeout(), c.maxOpenTimeout()
	if retryAfter > 0 {
		base = min(max(retryAfter, c.minOpenTimeout()), ceiling)
	}
	grown := float64(base) * math.Pow(c.openTimeoutMultiplier(), float64(max(openings, 1)-1))
	if grown >= float64(ceiling) { // also +Inf, and beyond what a Duration holds
		return ceiling
	}
	return time.Duration(grown)
}

func (c *Config) openTimeoutMultiplier() float64 {
	if c.OpenTimeoutMultiplier == 0 {
		return DefaultOpenTimeoutMultiplier
	}
	return c.OpenTimeoutMultiplier
}

func (c *Config) maxOpenTimeout() time.Duration {
	if c.MaxOpenTimeout == 0 {
		return max(DefaultMaxOpenTimeout, c.openTimeout())
	}
	return c.MaxOpenTimeout
}

func (c *Config) minOpenTimeout() time.Duration {
	if c.MinOpenTimeout == 0 {
		return c.openTimeout()
	}
	return c.MinOpenTimeout
}

func (c *Config) trialTimeout() time.Duration {
	if c.TrialTimeout == 0 {
		return DefaultTrialTimeout
	}
	return c.TrialTimeout
}

func (c *Config) halfOpenCalls() int {
	if c.HalfOpenCalls == 0 {
		return DefaultHalfOpenCalls
	}
	return c.HalfOpenCalls
}

func (c *Config) successThreshold() int {
	if c.SuccessThreshold == 0 {
		return c.halfOpenCalls()
	}
	return c.SuccessThreshold
}
