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
// zero or negative d creates no timer and reads no clock. The clocks are read in functions
// of their own, so that a loop parked here holds a frame of a hundred bytes or so: the stack
// of a goroutine parked in an HTTP client is otherwise not small enough for the garbage
// collector to halve it (bench/README, "A waiting loop").
func (l *Loop) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	l.readClockBeforeWait()
	timer := time.NewTimer(d)
	select {
	case <-ctx.Done():
		timer.Stop()
		return false
	case <-timer.C:
	}
	l.countSuspendedTime()
	return ctx.Err() == nil
}

// readClockBeforeWait keeps the clocks' reading at the start of a wait in l.
//
//go:noinline
func (l *Loop) readClockBeforeWait() { l.sleptAt = systemClock.Read() }

// countSuspendedTime adds the time the machine was suspended since readClockBeforeWait to
// l's suspended time.
//
//go:noinline
func (l *Loop) countSuspendedTime() {
	l.suspended += clock.Suspended(l.sleptAt, systemClock.Read())
}
