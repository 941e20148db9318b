package retry

import (
	"errors"
	"testing"
	"time"
)

// The zero Loop is NewLoop(nil, now, time.Time{}, false) started at its first call, not a
// nil-pointer panic: attempt 1 bounded by now + DefaultTimeout, then the zero Policy's
// decisions. Likewise Interrupt on a zero Loop.
func TestZeroLoopStartsAtFirstNext(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var l Loop
	step := l.Next(now)
	if step.Action != ActionAttempt || step.Attempt != 1 || !step.Deadline.Equal(now.Add(DefaultTimeout)) {
		t.Fatalf("first step %+v; want attempt 1 bounded by now + %v", step, DefaultTimeout)
	}
	var want Loop
	if err := want.Reset(nil, now, time.Time{}, false); err != nil {
		t.Fatal(err)
	}
	if got := want.Next(now); got != step {
		t.Errorf("NewLoop's first step %+v, the zero Loop's %+v", got, step)
	}
	d := l.Done(now.Add(time.Second), Outcome{Err: errors.New("reset")}, nil)
	if !d.Retry || d.Reason != ReasonRetryableError || d.Elapsed != time.Second || d.Remaining != DefaultTimeout-time.Second {
		t.Errorf("decision %+v; want a retry after 1 s of the %v deadline", d, DefaultTimeout)
	}

	var interrupted Loop
	if d := interrupted.Interrupt(now, errors.New("gone")); d.Reason != ReasonCanceled || !d.NoAttempt {
		t.Errorf("Interrupt on a zero Loop = %+v; want canceled without an attempt", d)
	}
}
