package breaker

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string // a fragment of the message; "" for valid
	}{
		{Config{}, ""},
		{Config{ConsecutiveFailures: 1, FailureRate: 1, MinCalls: 1, Window: MinWindow, OpenTimeout: 1, OpenJitter: 1, HalfOpenCalls: 5, SuccessThreshold: 5}, ""},
		{Config{ConsecutiveFailures: -1}, "ConsecutiveFailures -1 out of range"},
		{Config{ConsecutiveFailures: math.MaxInt32 + 1}, "ConsecutiveFailures 2147483648 out of range"},
		{Config{FailureRate: 1.5}, "FailureRate 1.5 out of range: must be in (0, 1]"},
		{Config{FailureRate: -0.1}, "FailureRate -0.1 out of range"},
		{Config{FailureRate: math.NaN()}, "FailureRate NaN out of range"},
		{Config{MinCalls: -3}, "MinCalls -3 out of range"},
		{Config{Window: 5 * time.Millisecond}, "Window 5ms out of range: must be at least 10ms"},
		{Config{Window: -time.Second}, "Window -1s out of range"},
		{Config{OpenTimeout: -time.Second}, "OpenTimeout -1s out of range"},
		{Config{OpenJitter: 2}, "OpenJitter 2 out of range: must be in [0, 1]"},
		{Config{HalfOpenCalls: -1}, "HalfOpenCalls -1 out of range"},
		{Config{SuccessThreshold: 2}, "SuccessThreshold 2 out of range: must be 1 to HalfOpenCalls (1)"},
		{Config{HalfOpenCalls: 3, SuccessThreshold: 4}, "SuccessThreshold 4 out of range: must be 1 to HalfOpenCalls (3)"},
		// Issue 32 item 5: the open time that learns.
		{Config{OpenTimeoutMultiplier: 2, MaxOpenTimeout: 30 * time.Second, MinOpenTimeout: time.Nanosecond}, ""},
		{Config{OpenTimeout: time.Hour}, ""}, // MaxOpenTimeout then defaults to OpenTimeout
		{Config{OpenTimeoutMultiplier: 0.5}, "OpenTimeoutMultiplier 0.5 out of range: must be from 1 to 1000, or 0 for the default 1"},
		{Config{OpenTimeoutMultiplier: 1001}, "OpenTimeoutMultiplier 1001 out of range"},
		{Config{OpenTimeoutMultiplier: math.NaN()}, "OpenTimeoutMultiplier NaN out of range"},
		{Config{OpenTimeoutMultiplier: math.Inf(1)}, "OpenTimeoutMultiplier +Inf out of range"},
		{Config{MaxOpenTimeout: -time.Second}, "MaxOpenTimeout -1s out of range"},
		{Config{MaxOpenTimeout: 29 * time.Second}, "MaxOpenTimeout 29s out of range: must be at least OpenTimeout (30s), or 0 for the longer of 5m0s and OpenTimeout"},
		{Config{OpenTimeout: time.Second, MaxOpenTimeout: 500 * time.Millisecond}, "MaxOpenTimeout 500ms out of range: must be at least OpenTimeout (1s)"},
		{Config{MinOpenTimeout: -time.Second}, "MinOpenTimeout -1s out of range"},
		{Config{MinOpenTimeout: 31 * time.Second}, "MinOpenTimeout 31s out of range: must be from 1ns to OpenTimeout (30s), or 0 for OpenTimeout"},
	} {
		b, err := New(tc.cfg)
		if tc.want == "" {
			if err != nil || b == nil {
				t.Errorf("New(%+v) = %v, want valid", tc.cfg, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) || b != nil {
			t.Errorf("New(%+v) = %v, want an ErrInvalidConfig containing %q", tc.cfg, err, tc.want)
		}
	}
	if _, err := NewGroup(GroupConfig{MaxKeys: -1}); err == nil || !strings.Contains(err.Error(), "MaxKeys -1 out of range") {
		t.Errorf("NewGroup(MaxKeys -1) = %v", err)
	}
	if _, err := NewGroup(GroupConfig{Breaker: Config{OpenJitter: -1}}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("NewGroup with a bad Breaker config = %v", err)
	}
}
