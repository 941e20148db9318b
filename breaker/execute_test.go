package breaker

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
)

var errDown = errors.New("service down")

func TestExecuteCountsAndRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := New(Config{ConsecutiveFailures: 2, OpenTimeout: 10 * time.Second})
		ctx := context.Background()
		runs := 0
		down := func(context.Context) error { runs++; return errDown }
		for range 2 {
			if err := b.Execute(ctx, down); err != errDown {
				t.Fatalf("Execute = %v, want op's error unchanged", err)
			}
		}
		time.Sleep(2500 * time.Millisecond)
		err := b.Execute(ctx, down)
		var open *OpenError
		if runs != 2 || !errors.Is(err, retry.ErrCircuitOpen) || !errors.As(err, &open) ||
			open.State != StateOpen || open.RetryIn != 7500*time.Millisecond {
			t.Fatalf("runs %d, err %#v", runs, err)
		}
		if got, want := err.Error(), "breaker: circuit OPEN: trial call in 7.5s"; got != want {
			t.Errorf("message %q, want %q", got, want)
		}
		if d, known := open.RetryAfter(); !known || d != 7500*time.Millisecond {
			t.Errorf("RetryAfter = %v, %v", d, known)
		}
		time.Sleep(7500 * time.Millisecond)
		inTrial := func(context.Context) error {
			err := b.Execute(ctx, down) // a second call while the trial runs
			if err == nil || err.Error() != "breaker: circuit HALF_OPEN: trial calls in flight" {
				t.Errorf("call during the trial: %v", err)
			}
			return nil
		}
		if err := b.Execute(ctx, inTrial); err != nil || b.State() != StateClosed {
			t.Fatalf("trial: %v, state %v", err, b.State())
		}
	})
}

func TestExecuteClassifies(t *testing.T) {
	b, _ := New(Config{ConsecutiveFailures: 1})
	ctx := context.Background()
	// A permanent failure says the service works: not counted against it.
	_ = b.Execute(ctx, func(context.Context) error { return retry.Permanent(errDown) })
	// The caller's own cancellation says nothing about the service.
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_ = b.Execute(canceled, func(ctx context.Context) error { return ctx.Err() })
	wantState(t, b, StateClosed)
	_ = b.Execute(ctx, func(context.Context) error { return retry.UnknownOutcome(errDown) })
	wantState(t, b, StateOpen)

	// A Classifier decides as in a retry policy.
	c, _ := New(Config{ConsecutiveFailures: 1, Classifier: func(o retry.Outcome) retry.Class {
		if errors.Is(o.Err, errDown) {
			return retry.ClassPermanent
		}
		return retry.ClassUnspecified
	}})
	_ = c.Execute(ctx, func(context.Context) error { return errDown })
	wantState(t, c, StateClosed)
	_ = c.Execute(ctx, func(context.Context) error { return errors.New("other") })
	wantState(t, c, StateOpen)
}

func TestExecutePanicCountsAsFailure(t *testing.T) {
	b, _ := New(Config{ConsecutiveFailures: 1})
	func() {
		defer func() {
			if recover() != "boom" {
				t.Error("panic not passed on")
			}
		}()
		_ = b.Execute(context.Background(), func(context.Context) error { panic("boom") })
	}()
	wantState(t, b, StateOpen)
}

// A Classifier that panics on a HALF_OPEN breaker's trial call reports the trial as a
// failure, so the breaker goes back to OPEN and admits a new trial after its open time,
// rather than refusing every call with "trial calls in flight" until TrialTimeout (issue 35
// item 1); the panic goes on up to the caller.
func TestExecuteClassifierPanicFailsTheTrial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		panics := false
		b, _ := New(Config{ConsecutiveFailures: 1, OpenTimeout: time.Second, Classifier: func(retry.Outcome) retry.Class {
			if panics {
				panic("classifier")
			}
			return retry.ClassUnspecified
		}})
		_ = b.Execute(context.Background(), func(context.Context) error { return errors.New("down") })
		time.Sleep(time.Second) // the next call is the trial
		panics = true
		func() {
			defer func() {
				if recover() != "classifier" {
					t.Error("panic not passed on")
				}
			}()
			_ = b.Execute(context.Background(), func(context.Context) error { return nil })
		}()
		wantState(t, b, StateOpen)
		time.Sleep(time.Second)
		panics = false
		if err := b.Execute(context.Background(), func(context.Context) error { return nil }); err != nil {
			t.Errorf("the next trial after the open time: %v", err)
		}
		wantState(t, b, StateClosed)
	})
}

// A nil op is bad input, answered with retry.ErrNilOperation as retry.Do answers it: it is
// not called (which would panic), takes no HALF_OPEN trial place and counts as no failure,
// so a breaker opening after one failure stays CLOSED.
func TestExecuteNilOperation(t *testing.T) {
	b, _ := New(Config{ConsecutiveFailures: 1})
	if err := b.Execute(context.Background(), nil); !errors.Is(err, retry.ErrNilOperation) {
		t.Fatalf("Execute(nil op) = %v, want retry.ErrNilOperation", err)
	}
	if s := b.State(); s != StateClosed {
		t.Errorf("state after Execute(nil op) = %s, want CLOSED", s)
	}
}

// The setup under a retry loop: a HALF_OPEN breaker as Policy.Breaker, the trial's
// attempt panics under retry.Do. The loop reports the trial as a failure as the panic goes
// up: the breaker is OPEN again and admits a new trial after its open time (issue 35 item
// 1).
func TestTrialPanicUnderDo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := New(Config{ConsecutiveFailures: 1, OpenTimeout: time.Second})
		p := &retry.Policy{Breaker: b, MaxAttempts: 1}
		_ = retry.Do(context.Background(), p, func(context.Context) error { return errors.New("down") })
		wantState(t, b, StateOpen)
		time.Sleep(time.Second)
		func() {
			defer func() {
				if recover() != "trial" {
					t.Error("panic not passed on")
				}
			}()
			_ = retry.Do(context.Background(), p, func(context.Context) error { panic("trial") })
		}()
		wantState(t, b, StateOpen)
		time.Sleep(time.Second)
		if err := retry.Do(context.Background(), p, func(context.Context) error { return nil }); err != nil {
			t.Errorf("the next trial after the open time: %v", err)
		}
		wantState(t, b, StateClosed)
	})
}
