package retry

import (
	"context"
	"time"

	"github.com/retrykit/retry/internal/clock"
)

// systemClock is the clock seam of the wake-up check: tests replace it to play a suspension
// or a wall-clock step during a wait.
var systemClock = clock.System

// sleep waits for d, or less when ctx ends first; it reports whether it waited it all. It
// also measures, by the boot clock (see package internal/clock), how long the machine was
// suspended during the wait, and adds it to the time l's wake-up check counts as gone. A
// zero or negative d creates no timer and reads no clock.
func (l *Loop) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	before := systemClock.Read()
	timer := time.NewTimer(d)
	select {
	case <-ctx.Done():
		timer.Stop()
		return false
	case <-timer.C:
	}
	l.suspended += clock.Suspended(before, systemClock.Read())
	return ctx.Err() == nil
}
