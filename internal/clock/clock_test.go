package clock

import (
	"runtime"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func TestSuspended(t *testing.T) {
	tests := []struct {
		name          string
		before, after Reading
		want          time.Duration
	}{
		{"boot clock: no suspension",
			Reading{Monotonic: 10 * time.Second, Boot: 12 * time.Second, HasBoot: true},
			Reading{Monotonic: 11 * time.Second, Boot: 13 * time.Second, HasBoot: true}, 0},
		{"boot clock: a wall step forward by an hour is no suspension",
			Reading{Monotonic: 10 * time.Second, Boot: 12 * time.Second, HasBoot: true, Wall: t0},
			Reading{Monotonic: 11 * time.Second, Boot: 13 * time.Second, HasBoot: true, Wall: t0.Add(time.Hour + time.Second)}, 0},
		{"boot clock: a wall step back by an hour is no suspension",
			Reading{Monotonic: 10 * time.Second, Boot: 12 * time.Second, HasBoot: true, Wall: t0},
			Reading{Monotonic: 11 * time.Second, Boot: 13 * time.Second, HasBoot: true, Wall: t0.Add(-time.Hour + time.Second)}, 0},
		{"boot clock: an hour suspended",
			Reading{Monotonic: 10 * time.Second, Boot: 12 * time.Second, HasBoot: true},
			Reading{Monotonic: 11 * time.Second, Boot: time.Hour + 13*time.Second, HasBoot: true}, time.Hour},
		{"wall fallback: an hour suspended, or a step forward, which reads the same",
			Reading{Monotonic: 10 * time.Second, Wall: t0},
			Reading{Monotonic: 11 * time.Second, Wall: t0.Add(time.Hour + time.Second)}, time.Hour},
		{"wall fallback: a step back is none",
			Reading{Monotonic: 10 * time.Second, Wall: t0},
			Reading{Monotonic: 11 * time.Second, Wall: t0.Add(-time.Hour)}, 0},
		{"boot clock: the time between two reads of one reading is no suspension",
			Reading{Monotonic: 10 * time.Second, Boot: 12 * time.Second, HasBoot: true},
			Reading{Monotonic: 11 * time.Second, Boot: 13*time.Second + 300, Skew: 300, HasBoot: true}, 0},
		{"boot clock: a suspension is counted less the reading's skew",
			Reading{Monotonic: 10 * time.Second, Boot: 12 * time.Second, HasBoot: true},
			Reading{Monotonic: 11 * time.Second, Boot: 15*time.Second + 300, Skew: 200, HasBoot: true}, 2*time.Second + 100},
		{"one reading without the boot clock falls back on the wall",
			Reading{Monotonic: 10 * time.Second, Boot: 12 * time.Second, HasBoot: true, Wall: t0},
			Reading{Monotonic: 11 * time.Second, Wall: t0.Add(time.Second)}, 0},
	}
	for _, tt := range tests {
		if got := Suspended(tt.before, tt.after); got != tt.want {
			t.Errorf("%s: Suspended = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The real clocks: on Linux the boot clock is read and never behind the monotonic clock
// (both count from boot, only it counts suspensions); elsewhere the wall fallback is used.
func TestSystemRead(t *testing.T) {
	a := System.Read()
	b := System.Read()
	if runtime.GOOS != "linux" {
		if a.HasBoot || a.Wall.IsZero() {
			t.Fatalf("reading %+v: want the wall fallback on %s", a, runtime.GOOS)
		}
		return
	}
	if !a.HasBoot || !b.HasBoot {
		t.Fatalf("readings %+v, %+v: want CLOCK_BOOTTIME on Linux", a, b)
	}
	if a.Boot < a.Monotonic {
		t.Errorf("CLOCK_BOOTTIME %v is behind CLOCK_MONOTONIC %v", a.Boot, a.Monotonic)
	}
	if b.Monotonic < a.Monotonic || b.Boot < a.Boot || a.Skew < 0 {
		t.Errorf("clocks went back: %+v then %+v", a, b)
	}
	// Consecutive reads of a machine that is not suspending: never a suspension, however
	// the reads interleave with the scheduler.
	for range 10000 {
		if s := Suspended(a, System.Read()); s != 0 {
			t.Fatalf("Suspended = %v between two reads of a running machine", s)
		}
	}
}

// The cost of one reading, taken twice around every non-zero wait of a retry loop.
func BenchmarkSystemRead(b *testing.B) {
	for b.Loop() {
		_ = System.Read()
	}
}
