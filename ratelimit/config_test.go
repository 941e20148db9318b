package ratelimit

import (
	"errors"
	"testing"
	"time"
)

// Bad configurations get an error naming the field, its value and what is allowed; the
// zero values work (house rules).
func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  GroupConfig
		want string
	}{
		{GroupConfig{Gate: Config{ProbeWait: -time.Millisecond}}, "ratelimit: invalid config: ProbeWait -1ms out of range: must be from 0 (no probe) to 1m0s"},
		{GroupConfig{Gate: Config{ProbeWait: 2 * time.Minute}}, "ratelimit: invalid config: ProbeWait 2m0s out of range: must be from 0 (no probe) to 1m0s"},
		{GroupConfig{MaxKeys: -1}, "ratelimit: invalid config: MaxKeys -1 out of range: must be positive, or 0 for the default 1024"},
	} {
		_, err := NewGroup(c.cfg)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("NewGroup(%+v) = %v, want %q wrapping ErrInvalidConfig", c.cfg, err, c.want)
		}
	}
	if _, err := NewGate(Config{ProbeWait: -1}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("NewGate with a negative ProbeWait: %v, want ErrInvalidConfig", err)
	}
	for _, cfg := range []Config{{}, {ProbeWait: MaxProbeWait}} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", cfg, err)
		}
	}
}
