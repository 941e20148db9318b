package ratelimit

import (
	"errors"
	"fmt"
	"time"
)

// MaxProbeWait is the longest Config.ProbeWait allowed.
const MaxProbeWait = time.Minute

// ErrInvalidConfig is wrapped by every error of [Config.Validate], [NewGate] and [NewGroup].
var ErrInvalidConfig = errors.New("ratelimit: invalid config")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
}

// Config configures a [Gate]. The zero Config is valid: no first-contact probe.
type Config struct {
	// ProbeWait turns on the first-contact probe: while the destination has never
	// answered and one attempt (the probe) is in flight, other attempts wait for its
	// answer, and its rate-limit headers, at most ProbeWait after the probe was sent.
	// They wait by asking again (see [Gate.Reserve]). Meant for callers that start many
	// attempts at once against a destination that publishes its limit, such as an LLM
	// API under its SDK. Zero (the default) means no probe; otherwise at most
	// MaxProbeWait.
	ProbeWait time.Duration
}

// Validate reports whether c is usable: nil, or an error wrapping ErrInvalidConfig that
// names the field out of range, its value and what is allowed.
func (c *Config) Validate() error {
	if c.ProbeWait < 0 || c.ProbeWait > MaxProbeWait {
		return invalid("ProbeWait %v out of range: must be from 0 (no probe) to %v", c.ProbeWait, MaxProbeWait)
	}
	return nil
}
