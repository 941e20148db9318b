package hedge

import (
	"math"
	"time"

	"github.com/retrykit/retry"
)

// Defaults of a [Config]'s zero fields.
const (
	// DefaultBudget is the share of attempts that may be hedged: the 2 % of "The Tail at
	// Scale".
	DefaultBudget = 0.02
	// DefaultMinDelay is the floor of an adaptive delay, Finagle's: a service whose
	// percentile is near 0 ms still gets hedges after a millisecond, not at once.
	DefaultMinDelay = time.Millisecond
	// DefaultMaxDelay is the cap of an adaptive delay, and the delay until the window holds
	// enough latencies.
	DefaultMaxDelay = time.Second
	// DefaultWindow is how many recent latencies the percentile is read from.
	DefaultWindow = 2000
	// DefaultPercentileWithoutBudget is the percentile of a Config whose Budget is
	// retry.None and whose Percentile is zero.
	DefaultPercentileWithoutBudget = 0.95
)

// Bounds of a [Config]'s fields.
const (
	// MinWindow and MaxWindow bound Config.Window.
	MinWindow = 100
	MaxWindow = 100_000
	// budgetBurst is how many attempts' worth of tokens the budget holds.
	budgetBurst = 1000
	// sureAbove is how many latencies of the window must lie above the percentile before
	// the Hedger trusts its reading of it.
	sureAbove = 10
)

// Config configures a [Hedger]. The zero Config is valid: an adaptive delay at the 98.5th
// percentile of the last 2,000 latencies, between 1 ms and 1 s, one hedge an attempt, a
// hedge budget of 2 % of attempts.
type Config struct {
	// Delay, when positive, is a fixed delay: an attempt is hedged when it has had no answer
	// for Delay. Percentile, MinDelay, MaxDelay and Window must then be zero. Zero means an
	// adaptive delay; negative is invalid.
	Delay time.Duration
	// Percentile is the share of recent latencies the adaptive delay stays above, in
	// (0, 1): 0.98 hedges an attempt once it is slower than 98 % of them. Zero means 1 − ¾
	// × Budget (0.985 with the default budget), which leaves a quarter of the budget for
	// bursts and shifts of the latencies; with no budget, DefaultPercentileWithoutBudget.
	Percentile float64
	// MinDelay and MaxDelay are the floor and the cap of the adaptive delay; MaxDelay is
	// also the delay until the window holds enough latencies to read the percentile (10
	// above it). Zero means DefaultMinDelay and DefaultMaxDelay; MaxDelay must be at least
	// MinDelay; negative is invalid.
	MinDelay, MaxDelay time.Duration
	// MaxHedges is how many hedges one attempt may have, each sent Delay after the last,
	// from 1 to retry.MaxHedges. Zero means 1.
	MaxHedges int
	// Budget is the share of attempts (not hedges) that may be hedged, in (0, 1]: each adds
	// Budget of a token, each hedge takes one, and the budget holds at most 1,000 attempts'
	// worth, starting full. Zero means DefaultBudget; retry.None removes the hedge budget (the
	// policy's retry budget still applies).
	Budget float64
	// Window is how many recent latencies the adaptive delay reads, from MinWindow to
	// MaxWindow: it forgets them a quarter at a time, and reads between ¾ × Window and
	// Window of them. Zero means DefaultWindow.
	Window int
}

// Validate reports whether c is usable: nil, or an error wrapping ErrInvalidConfig that
// names the field out of range, its value and what is allowed.
func (c *Config) Validate() error {
	switch {
	case c.Delay < 0:
		return invalid("Delay %v is negative: use a positive duration for a fixed delay, or 0 for an adaptive one", c.Delay)
	case c.Delay > 0 && (c.Percentile != 0 || c.MinDelay != 0 || c.MaxDelay != 0 || c.Window != 0):
		return invalid("Delay %v is fixed: Percentile, MinDelay, MaxDelay and Window set an adaptive delay; set one or the other", c.Delay)
	case c.Percentile != 0 && !(c.Percentile > 0 && c.Percentile < 1):
		return invalid("Percentile %v out of range: must be in (0, 1), such as 0.98, or 0 for the default", c.Percentile)
	case c.MinDelay < 0:
		return invalid("MinDelay %v is negative: use a positive duration, or 0 for the default %v", c.MinDelay, DefaultMinDelay)
	case c.MaxDelay < 0:
		return invalid("MaxDelay %v is negative: use a positive duration, or 0 for the default %v", c.MaxDelay, DefaultMaxDelay)
	case c.maxDelay() < c.minDelay():
		return invalid("MaxDelay %v is below MinDelay %v: the cap must be at least the floor", c.maxDelay(), c.minDelay())
	case c.MaxHedges < 0 || c.MaxHedges > retry.MaxHedges:
		return invalid("MaxHedges %d out of range: must be from 1 to %d, or 0 for 1", c.MaxHedges, retry.MaxHedges)
	case c.Budget != retry.None && !(c.Budget >= 0 && c.Budget <= 1):
		return invalid("Budget %v out of range: must be in (0, 1], 0 for the default %v, or retry.None", c.Budget, DefaultBudget)
	case c.Window != 0 && (c.Window < MinWindow || c.Window > MaxWindow):
		return invalid("Window %d out of range: must be from %d to %d latencies, or 0 for the default %d", c.Window, MinWindow, MaxWindow, DefaultWindow)
	}
	return nil
}

func (c *Config) budget() float64 {
	if c.Budget == 0 {
		return DefaultBudget
	}
	return c.Budget // retry.None included: the caller tells it apart
}

func (c *Config) percentile() float64 {
	switch {
	case c.Percentile != 0:
		return c.Percentile
	case c.Budget == retry.None:
		return DefaultPercentileWithoutBudget
	}
	return 1 - 0.75*c.budget()
}

func (c *Config) minDelay() time.Duration {
	if c.MinDelay == 0 {
		return DefaultMinDelay
	}
	return c.MinDelay
}

func (c *Config) maxDelay() time.Duration {
	if c.MaxDelay == 0 {
		return DefaultMaxDelay
	}
	return c.MaxDelay
}

func (c *Config) maxHedges() int {
	if c.MaxHedges == 0 {
		return 1
	}
	return c.MaxHedges
}

func (c *Config) window() int {
	if c.Window == 0 {
		return DefaultWindow
	}
	return c.Window
}

// minSamples is how many latencies the window must hold before the percentile is read: at
// least sureAbove above it, and never more than half the window.
func (c *Config) minSamples() int {
	n := int(math.Ceil(sureAbove / (1 - c.percentile())))
	return min(n, c.window()/2)
}
