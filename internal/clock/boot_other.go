//go:build !linux

package clock

import "time"

// bootClocks reports that the standard library offers no boot clock on this platform.
func bootClocks() (monotonic, boot time.Duration, ok bool) { return 0, 0, false }
