//go:build !linux

package clock

import "time"

// bootClocks reports that the standard library offers no boot clock on this platform.
func bootClocks() (monotonic, boot, skew time.Duration, ok bool) { return 0, 0, 0, false }
