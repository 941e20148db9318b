package breaker

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
)

// Issue 32 item 1: a throttle (HTTP 429, RESOURCE_EXHAUSTED) says that the service works and
// the caller is over its limit. 200 of them in a row never open the breaker, and the calls
// after them are admitted. Before, the 429s opened it and it refused every call for 30 s.
func TestThrottlesNeverOpen(t *testing.T) {
	for _, cfg := range []Config{{}, {FailureRate: 0.5, MinCalls: 10}} {
		b, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			call(t, b, throttled)
		}
		wantState(t, b, StateClosed)
		for range 10 {
			call(t, b, ok)
		}
	}
}

// A throttle is an answer of a service that works: it ends a run of failures as a success
// does, and counts as a call that did not fail in the failure-rate window (issue 32 item 1).
// An overload refusal (a 503 or 529, reported as a failure) still counts against the service.
func TestThrottleCountsAsAnAnswer(t *testing.T) {
	b, _ := New(Config{})
	call(t, b, fail)
	call(t, b, fail)
	call(t, b, throttled)
	call(t, b, fail)
	call(t, b, fail)
	wantState(t, b, StateClosed)
	call(t, b, fail)
	wantState(t, b, StateOpen)

	synctest.Test(t, func(t *testing.T) {
		// 5 throttled calls, then failures: at a FailureRate of 0.6 it opens at the 8th
		// failure (8 of 13), as it would after 5 successes; throttles counted as failures
		// would have opened it at the 10th call.
		b, _ := New(Config{FailureRate: 0.6, MinCalls: 10})
		for range 5 {
			call(t, b, throttled)
		}
		for range 7 {
			call(t, b, fail)
		}
		wantState(t, b, StateClosed)
		call(t, b, fail)
		wantState(t, b, StateOpen)
	})
}

// A throttled trial call in HALF_OPEN says the service works: it counts as a trial success,
// and closes the breaker once SuccessThreshold trials have (issue 32 item 1; see the package
// documentation for why).
func TestThrottledTrialCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes []change
		b := newRecorded(t, Config{ConsecutiveFailures: 1, OpenTimeout: 10 * time.Second, HalfOpenCalls: 2}, &changes)
		call(t, b, fail)
		time.Sleep(10 * time.Second)
		call(t, b, throttled)
		wantState(t, b, StateHalfOpen)
		call(t, b, throttled)
		wantState(t, b, StateClosed)
		wantChanges(t, changes,
			change{StateClosed, StateOpen, 0},
			change{StateOpen, StateHalfOpen, 10 * time.Second},
			change{StateHalfOpen, StateClosed, 10 * time.Second})
	})
}

// A Result this package does not know (a later version of package retry may add one) says
// nothing about the service: it neither opens nor closes the breaker, nor ends a run of
// failures (issue 32: an unknown value used to count as a failure in CLOSED).
func TestUnknownResultIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		unknown := retry.Result(200)
		b, _ := New(Config{ConsecutiveFailures: 2, OpenTimeout: time.Second})
		for range 5 {
			call(t, b, unknown)
		}
		call(t, b, fail)
		call(t, b, unknown)
		wantState(t, b, StateClosed)
		call(t, b, fail)
		wantState(t, b, StateOpen)
		time.Sleep(time.Second)
		call(t, b, unknown) // the trial says nothing: its place goes back
		wantState(t, b, StateHalfOpen)
		call(t, b, ok)
		wantState(t, b, StateClosed)
	})
}

// Execute counts an error of status 429 (a *retry.StatusError, or a retry loop's
// *retry.Error) as a throttle, not a failure, and a 503 as a failure (issue 32 item 1).
func TestExecuteThrottle(t *testing.T) {
	b, _ := New(Config{ConsecutiveFailures: 1})
	ctx := context.Background()
	tooMany := &retry.StatusError{Status: 429}
	for _, err := range []error{tooMany, &retry.Error{Reason: retry.ReasonAttemptsExhausted, Status: 429, Err: tooMany}} {
		if got := b.Execute(ctx, func(context.Context) error { return err }); got != err {
			t.Fatalf("Execute = %v, want op's error", got)
		}
		wantState(t, b, StateClosed)
	}
	_ = b.Execute(ctx, func(context.Context) error { return &retry.StatusError{Status: 503} })
	wantState(t, b, StateOpen)
	if err := b.Execute(ctx, func(context.Context) error { return nil }); !errors.Is(err, retry.ErrCircuitOpen) {
		t.Fatalf("Execute when OPEN = %v", err)
	}
}
