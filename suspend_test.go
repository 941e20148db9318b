package retry

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry/internal/clock"
)

// fakeClock plays the machine's clocks inside a synctest bubble: the monotonic clock is the
// bubble's, the boot clock adds the time suspended so far, the wall clock adds its steps.
type fakeClock struct {
	mu        sync.Mutex
	origin    time.Time
	suspended time.Duration
	wallStep  time.Duration
	hasBoot   bool
}

func (c *fakeClock) Read() clock.Reading {
	c.mu.Lock()
	defer c.mu.Unlock()
	mono := time.Since(c.origin)
	r := clock.Reading{Monotonic: mono, Wall: c.origin.Add(mono + c.suspended + c.wallStep).Round(0)}
	if c.hasBoot {
		r.Boot, r.HasBoot = mono+c.suspended, true
	}
	return r
}

// at runs change on c after d of bubble time, during the loop's wait.
func (c *fakeClock) at(d time.Duration, change func(c *fakeClock)) {
	go func() {
		time.Sleep(d)
		c.mu.Lock()
		change(c)
		c.mu.Unlock()
	}()
}

func useClock(t *testing.T, c clock.Clock) {
	saved := systemClock
	systemClock = c
	t.Cleanup(func() { systemClock = saved })
}

// Issue 12 item 5, SPEC R2.4 and R2.6: a wall clock stepped by an hour during a 1 s wait (the
// monotonic clock moving 1 s) does not move the deadline in either direction; a machine
// suspended during a wait has the suspended time counted as gone, across waits. Policy:
// timeout 10 s, a constant 1 s wait, 3 attempts, always failing: the waits end at 1 s and 2 s.
func TestWakeUpCheckTellsSuspensionFromWallStep(t *testing.T) {
	tests := []struct {
		name         string
		hasBoot      bool
		changes      map[time.Duration]func(c *fakeClock) // at bubble time, during a wait
		wantAttempts int
		wantReason   Reason
	}{
		{"no event", true, nil, 3, ReasonAttemptsExhausted},
		{"wall clock stepped forward an hour", true,
			map[time.Duration]func(*fakeClock){500 * time.Millisecond: func(c *fakeClock) { c.wallStep = time.Hour }}, 3, ReasonAttemptsExhausted},
		{"wall clock stepped back an hour", true,
			map[time.Duration]func(*fakeClock){500 * time.Millisecond: func(c *fakeClock) { c.wallStep = -time.Hour }}, 3, ReasonAttemptsExhausted},
		{"suspended an hour", true,
			map[time.Duration]func(*fakeClock){500 * time.Millisecond: func(c *fakeClock) { c.suspended = time.Hour }}, 1, ReasonDeadlineExceeded},
		{"suspended 5 s: 4 s left, the loop goes on", true,
			map[time.Duration]func(*fakeClock){500 * time.Millisecond: func(c *fakeClock) { c.suspended = 5 * time.Second }}, 3, ReasonAttemptsExhausted},
		{"suspended 5 s then 4 s: the second wait ends past the deadline", true,
			map[time.Duration]func(*fakeClock){
				500 * time.Millisecond:  func(c *fakeClock) { c.suspended = 5 * time.Second },
				1500 * time.Millisecond: func(c *fakeClock) { c.suspended = 9 * time.Second },
			}, 2, ReasonDeadlineExceeded},
		{"no boot clock (not Linux): a suspension is caught", false,
			map[time.Duration]func(*fakeClock){500 * time.Millisecond: func(c *fakeClock) { c.suspended = time.Hour }}, 1, ReasonDeadlineExceeded},
		{"no boot clock (not Linux): a step forward reads as a suspension, as documented", false,
			map[time.Duration]func(*fakeClock){500 * time.Millisecond: func(c *fakeClock) { c.wallStep = time.Hour }}, 1, ReasonDeadlineExceeded},
		{"no boot clock (not Linux): a step back is ignored", false,
			map[time.Duration]func(*fakeClock){500 * time.Millisecond: func(c *fakeClock) { c.wallStep = -time.Hour }}, 3, ReasonAttemptsExhausted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := &fakeClock{origin: time.Now(), hasBoot: tt.hasBoot}
				useClock(t, c)
				for at, change := range tt.changes {
					c.at(at, change)
				}
				p := &Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Backoff: constantBackoff(t, time.Second)}
				attempts := 0
				err := Do(context.Background(), p, func(context.Context) error { attempts++; return errTransient })
				var e *Error
				if !errors.As(err, &e) || e.Reason != tt.wantReason || attempts != tt.wantAttempts {
					t.Fatalf("after %d attempts: %v, want %d attempts and %s", attempts, err, tt.wantAttempts, tt.wantReason)
				}
				if got := errors.Is(err, context.DeadlineExceeded); got != (tt.wantReason == ReasonDeadlineExceeded) {
					t.Errorf("errors.Is(err, context.DeadlineExceeded) = %v for %s", got, tt.wantReason)
				}
				time.Sleep(2 * time.Second) // let the clock changers finish
			})
		})
	}
}

// A wait of zero reads no clock at all.
func TestZeroWaitReadsNoClock(t *testing.T) {
	c := &countingClock{}
	useClock(t, c)
	p := &Policy{MaxAttempts: 3, Backoff: constantBackoff(t, 0)}
	_ = Do(context.Background(), p, func(context.Context) error { return errTransient })
	if c.reads != 0 {
		t.Errorf("%d clock reads for zero waits", c.reads)
	}
}

type countingClock struct{ reads int }

func (c *countingClock) Read() clock.Reading { c.reads++; return clock.Reading{} }
