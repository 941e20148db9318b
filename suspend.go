package retry

import (
	"context"
	"time"

	"github.com/retrykit/retry/internal/clock"
)

// systemClock is the clock seam of the wake-up check: tests replace it to play a suspension
// or a wall-clock step during a wait.
var systemClock = clock.System

// sleep is the package's sleep that also measures, by the boot clock (see package
// internal/clock), how long the machine was suspended during the wait, and adds it to the
// time l's wake-up check counts as gone (SPEC R2.4). A zero wait reads no clock.
func (l *Loop) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return sleep(ctx, d)
	}
	before := systemClock.Read()
	if !sleep(ctx, d) {
		return false
	}
	l.suspended += clock.Suspended(before, systemClock.Read())
	return true
}
