// Package clock reads the clocks the retry loop compares after a wait, to tell a suspended
// machine from a stepped wall clock.
//
// Go's monotonic clock, which time.Now and timers use, stops while the machine is
// suspended on Linux, so a wait that spans a suspension lasts longer in real time than
// asked. The wall clock counts the suspension, but it also jumps whenever it is set (an NTP
// step, a user changing the date), so comparing the two mistakes a step for a suspension.
// On Linux, [System] therefore reads CLOCK_BOOTTIME, which counts suspended time and is
// never set, and CLOCK_MONOTONIC, which does not count it, through the syscall package;
// their difference grows by exactly the time spent suspended. On other platforms, where
// the standard library offers no boot clock, it falls back on the wall clock: a suspension
// is caught, and so is a wall-clock step forward during a wait, which reads as one.
package clock

import "time"

// Reading is the clocks read at one moment. Monotonic and Boot count from an arbitrary
// origin that is the same for every Reading of one Clock; only their differences mean
// anything.
type Reading struct {
	// Monotonic does not advance while the machine is suspended.
	Monotonic time.Duration
	// Boot advances while the machine is suspended and is never set; valid when HasBoot.
	// It is read after Monotonic, and Skew is the monotonic time that passed between the
	// two readings: Boot - Monotonic is the time suspended so far, give or take Skew.
	Boot    time.Duration
	Skew    time.Duration
	HasBoot bool
	// Wall is the wall clock without its monotonic reading, read when HasBoot is false.
	Wall time.Time
}

// Clock reads the clocks. [System] is the real one; tests substitute their own to play a
// suspension or a wall-clock step. Implementations must be safe for concurrent use.
type Clock interface {
	Read() Reading
}

// System is the machine's clocks. It is safe for concurrent use.
var System Clock = system{}

type system struct{}

// origin anchors the monotonic readings of the wall-clock fallback.
var origin = time.Now()

func (system) Read() Reading {
	if monotonic, boot, skew, ok := bootClocks(); ok {
		return Reading{Monotonic: monotonic, Boot: boot, Skew: skew, HasBoot: true}
	}
	now := time.Now()
	return Reading{Monotonic: now.Sub(origin), Wall: now.Round(0)}
}

// Suspended returns how long the machine was suspended between the readings before and
// after: the real time elapsed (by the boot clock, else the wall clock) less the monotonic
// time elapsed, never negative. With a boot clock it is a lower bound, exact to within the
// after reading's Skew (a few hundred nanoseconds), so that the time between two clock
// reads never passes for a suspension, and a wall-clock step in either direction changes
// nothing; without one a step forward counts as a suspension and a step back as none.
func Suspended(before, after Reading) time.Duration {
	monotonic := after.Monotonic - before.Monotonic
	var real time.Duration
	if before.HasBoot && after.HasBoot {
		real = after.Boot - before.Boot - after.Skew
	} else {
		real = after.Wall.Sub(before.Wall)
	}
	return max(0, real-monotonic)
}
