package retry

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

var (
	errShutdown    = errors.New("shutting down")
	errBudget      = errors.New("request budget spent")
	errBackendDown = errors.New("backend down")
)

// The cause the caller gave its context is in the stop's chain, beside context.Canceled or
// context.DeadlineExceeded, whether the context ended during a wait or an attempt (issue 20
// item 4). A deadline never ends a wait: the loop foresees it and stops before, when the
// context has no cause yet to give (wait_exceeds_deadline, which matches
// context.DeadlineExceeded).
func TestStopKeepsTheContextsCause(t *testing.T) {
	for _, tc := range []struct {
		name        string
		duringWait  bool
		useDeadline bool
	}{
		{"cancel with cause during a wait", true, false},
		{"cancel with cause during an attempt", false, false},
		{"timeout with cause during an attempt", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cause, ctxErr, sentinel := context.Background(), errShutdown, context.Canceled, ErrCanceled
				if tc.useDeadline {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeoutCause(ctx, 1500*time.Millisecond, errBudget)
					defer cancel()
					cause, ctxErr, sentinel = errBudget, context.DeadlineExceeded, ErrDeadlineExceeded
				} else {
					var cancel context.CancelCauseFunc
					ctx, cancel = context.WithCancelCause(ctx)
					defer cancel(nil)
					time.AfterFunc(1500*time.Millisecond, func() { cancel(errShutdown) })
				}
				p := &Policy{MaxAttempts: 5, Backoff: constantBackoff(t, time.Second)}
				err := Do(ctx, p, func(ctx context.Context) error {
					if tc.duringWait {
						return errTransient
					}
					<-ctx.Done()
					return ctx.Err()
				})
				for _, target := range []error{cause, ctxErr, sentinel} {
					if !errors.Is(err, target) {
						t.Errorf("errors.Is(%v, %v) = false", err, target)
					}
				}
				var e *Error
				if !errors.As(err, &e) || e.Cause != cause {
					t.Fatalf("Cause = %v, want %v", e.Cause, cause)
				}
				if !strings.Contains(err.Error(), cause.Error()) {
					t.Errorf("message %q does not name the cause %q", err, cause)
				}
			})
		})
	}
}

// A deadline that cuts the last attempt does not hide the failure before it: attempt 1 fails
// at 100 ms with "backend down", attempt 2 hangs until the caller's deadline at 1.5 s. The
// stop reaches "backend down" through errors.Is and names it in its message (issue 20 item
// 4, the gRPC report's timeline).
func TestDeadlineStopKeepsTheFailureBehindIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer cancel()
		p := &Policy{AttemptTimeout: time.Second, Backoff: constantBackoff(t, 400*time.Millisecond)}
		calls := 0
		err := Do(ctx, p, func(ctx context.Context) error {
			calls++
			if calls == 1 {
				time.Sleep(100 * time.Millisecond)
				return errBackendDown
			}
			<-ctx.Done()
			return ctx.Err()
		})
		var e *Error
		if !errors.As(err, &e) || e.Reason != ReasonDeadlineExceeded || calls != 2 {
			t.Fatalf("%d calls, %v; want deadline_exceeded after 2", calls, err)
		}
		if !errors.Is(err, errBackendDown) || e.LastFailure != errBackendDown || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("errors.Is(err, backend down) = %v, LastFailure = %v", errors.Is(err, errBackendDown), e.LastFailure)
		}
		want := "retry: deadline_exceeded after 2 attempts in 1.5s: context deadline exceeded (after an earlier attempt's backend down)"
		if err.Error() != want {
			t.Errorf("message\n got %q\nwant %q", err, want)
		}
	})
	// A status-only failure is a *StatusError.
	synctest.Test(t, func(t *testing.T) {
		p := &Policy{Timeout: time.Second, Backoff: constantBackoff(t, 100*time.Millisecond)}
		calls := 0
		_, final, err := Run(context.Background(), p, Operation[int]{Attempt: func(ctx context.Context) (int, Outcome) {
			if calls++; calls == 1 {
				return 0, Outcome{Status: 503}
			}
			<-ctx.Done()
			return 0, Outcome{Err: ctx.Err()}
		}})
		final.End()
		var status *StatusError
		if !errors.As(err, &status) || status.Status != 503 || !strings.HasSuffix(err.Error(), "(after an earlier attempt's status 503)") {
			t.Errorf("err = %v; want the earlier 503 as a *StatusError", err)
		}
	})
	// When the last attempt failed by itself, it is the failure: no LastFailure.
	err := Do(context.Background(), &Policy{MaxAttempts: 2, Backoff: constantBackoff(t, 0)},
		func(context.Context) error { return errBackendDown })
	if e := new(Error); !errors.As(err, &e) || e.LastFailure != nil {
		t.Errorf("LastFailure = %v, want nil when Err is the failure", e.LastFailure)
	}
}

// An inner loop passes its server's wait on to the outer loop: the inner one makes one attempt
// (NestedSingleAttempt), answered 429 with a 1 s wait, and stops; the outer one waits that
// second rather than its own 10 ms backoff (issue 20 item 4). RetryAfter(err) and
// (*Error).RetryAfter agree on it (issue 28: one meaning).
func TestNestedLoopHonoursTheInnerServerWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := &Policy{Nested: NestedSingleAttempt}
		calls := 0
		var times []time.Duration
		start := time.Now()
		outer := &Policy{MaxAttempts: 3, Backoff: constantBackoff(t, 10*time.Millisecond), RetryAfterSpread: None}
		err := Do(context.Background(), outer, func(ctx context.Context) error {
			_, final, err := Run(ctx, inner, Operation[int]{Attempt: func(context.Context) (int, Outcome) {
				times = append(times, time.Since(start))
				if calls++; calls == 1 {
					return 0, Outcome{Status: 429, RetryAfter: time.Second, HasRetryAfter: true, RetryAfterFrom: "retry-after"}
				}
				return 0, Outcome{Status: 200}
			}})
			final.End()
			if calls == 1 {
				var e *Error
				wait, ok := RetryAfter(err)
				if !errors.As(err, &e) {
					t.Fatalf("inner err = %v", err)
				}
				ew, eok := e.RetryAfter()
				if wait != time.Second || !ok || ew != wait || eok != ok || e.RetryAfterFrom() != "retry-after" {
					t.Errorf("RetryAfter(err) = %v %v, (*Error).RetryAfter() = %v %v from %q; want 1s true from retry-after",
						wait, ok, ew, eok, e.RetryAfterFrom())
				}
			}
			return err
		})
		if err != nil || len(times) != 2 || times[1] != time.Second {
			t.Errorf("err %v, attempts at %v; want success, the second at 1s", err, times)
		}
	})
}

// An inner loop's refusal is passed on: a stop on a permanent failure is permanent for the
// outer loop too, an unknown outcome unknown, so the outer loop never repeats what the inner
// one refused to.
func TestNestedLoopPassesOnItsClass(t *testing.T) {
	for _, tc := range []struct {
		inner Outcome
		want  Reason
	}{
		{Outcome{Status: 404}, ReasonNonRetryableError},
		{Outcome{Err: UnknownOutcome(errTransient)}, ReasonUnknownOutcome},
		{Outcome{Status: 503}, ReasonAttemptsExhausted},
	} {
		calls := 0
		err := Do(context.Background(), &Policy{MaxAttempts: 3, Backoff: constantBackoff(t, 0)}, func(ctx context.Context) error {
			_, final, err := Run(ctx, &Policy{Nested: NestedSingleAttempt}, Operation[int]{Attempt: func(context.Context) (int, Outcome) {
				calls++
				return 0, tc.inner
			}})
			final.End()
			return err
		})
		var e *Error
		wantCalls := map[Reason]int{ReasonAttemptsExhausted: 3}[tc.want]
		if wantCalls == 0 {
			wantCalls = 1
		}
		if !errors.As(err, &e) || e.Reason != tc.want || calls != wantCalls {
			t.Errorf("inner %+v: %d calls, %v; want %s after %d", tc.inner, calls, err, tc.want, wantCalls)
		}
	}
}
