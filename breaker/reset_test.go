package breaker

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// Reset returns an OPEN breaker to CLOSED with nothing counted (told to OnStateChange), and
// a late result of a call admitted before the reset, in CLOSED at generation 0 as the new
// state's first calls are, is ignored: two failures more are needed to open it again.
func TestResetForgetsAndIgnoresEarlierTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes []change
		b := newRecorded(t, Config{ConsecutiveFailures: 2, OpenTimeout: time.Minute}, &changes)
		late, _, _ := b.Allow() // admitted in CLOSED, generation 0; its result comes after the reset
		call(t, b, fail)
		call(t, b, fail)
		time.Sleep(time.Second)
		b.Reset()
		if b.State() != StateClosed {
			t.Fatalf("after Reset: %v, want CLOSED", b.State())
		}
		call(t, b, fail)
		b.Done(late, fail) // would open it, counted
		if b.State() != StateClosed {
			t.Fatalf("after a new failure and a late one: %v, want CLOSED (the late result ignored)", b.State())
		}
		call(t, b, fail)
		want := []change{{StateClosed, StateOpen, 0}, {StateOpen, StateClosed, time.Second}, {StateClosed, StateOpen, time.Second}}
		if !slices.Equal(changes, want) {
			t.Errorf("changes %v, want %v", changes, want)
		}
		b.Reset()
		b.Reset() // CLOSED already: no change to tell
		if len(changes) != 4 || changes[3] != (change{StateOpen, StateClosed, time.Second}) {
			t.Errorf("changes %v, want one more, OPEN to CLOSED at 1s", changes)
		}
	})
}
