package retry

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"testing/synctest"
	"time"
)

// Issue 12 item 4: every stop caused by a deadline matches context.DeadlineExceeded, whether
// the deadline is the caller's or the policy's and whether it passed during an attempt or
// was foreseen before a wait; it still matches its own sentinel and the last attempt's
// error. Other stops do not match it.
func TestDeadlineStopsMatchContextDeadlineExceeded(t *testing.T) {
	errServer := errors.New("server busy")
	tests := []struct {
		name         string
		callerLimit  time.Duration // the caller's context deadline; 0 for none
		policy       Policy
		op           func(ctx context.Context) error
		wantReason   Reason
		wantSentinel error
		wantAt       time.Duration
		wantDeadline bool
	}{
		{"caller's 1.5 s deadline, 1 s waits: foreseen before the second wait", 1500 * time.Millisecond,
			Policy{MaxAttempts: 5, Backoff: constantBackoff(t, time.Second)},
			func(context.Context) error { return errTransient },
			ReasonWaitExceedsDeadline, ErrWaitExceedsDeadline, time.Second, true},
		{"caller's 1.5 s deadline passing during an attempt", 1500 * time.Millisecond,
			Policy{MaxAttempts: 5, Backoff: constantBackoff(t, time.Second)},
			func(ctx context.Context) error { <-ctx.Done(); return errTransient },
			ReasonDeadlineExceeded, ErrDeadlineExceeded, 1500 * time.Millisecond, true},
		{"policy's 1.5 s Timeout, 1 s waits: foreseen before the second wait", 0,
			Policy{MaxAttempts: 5, Timeout: 1500 * time.Millisecond, Backoff: constantBackoff(t, time.Second)},
			func(context.Context) error { return errTransient },
			ReasonWaitExceedsDeadline, ErrWaitExceedsDeadline, time.Second, true},
		{"policy's 1.5 s Timeout passing during an attempt", 0,
			Policy{MaxAttempts: 5, Timeout: 1500 * time.Millisecond, Backoff: constantBackoff(t, time.Second)},
			func(ctx context.Context) error { <-ctx.Done(); return errTransient },
			ReasonDeadlineExceeded, ErrDeadlineExceeded, 1500 * time.Millisecond, true},
		{"policy's Timeout passing during an attempt that ignores it", 0,
			Policy{MaxAttempts: 5, Timeout: 1500 * time.Millisecond, Backoff: constantBackoff(t, time.Second)},
			func(context.Context) error { time.Sleep(2 * time.Second); return errTransient },
			ReasonDeadlineExceeded, ErrDeadlineExceeded, 2 * time.Second, true},
		{"Retry-After beyond the caller's deadline", 10 * time.Second,
			Policy{MaxAttempts: 5, Backoff: constantBackoff(t, time.Second)},
			func(context.Context) error { return After(errTransient, time.Minute) },
			ReasonRetryAfterExceedsDeadline, ErrRetryAfterExceedsDeadline, 0, true},
		{"Retry-After beyond the policy's Timeout", 0,
			Policy{MaxAttempts: 5, Timeout: 10 * time.Second, MaxWait: NoLimit, Backoff: constantBackoff(t, time.Second)},
			func(context.Context) error { return After(errTransient, time.Minute) },
			ReasonRetryAfterExceedsDeadline, ErrRetryAfterExceedsDeadline, 0, true},
		{"not a deadline: attempts exhausted", 0,
			Policy{MaxAttempts: 2, Backoff: constantBackoff(t, time.Second)},
			func(context.Context) error { return errTransient },
			ReasonAttemptsExhausted, ErrAttemptsExhausted, time.Second, false},
		{"not a deadline: Retry-After above MaxWait", 0,
			Policy{MaxAttempts: 2, Timeout: NoLimit, MaxWait: time.Second, Backoff: constantBackoff(t, time.Second)},
			func(context.Context) error { return After(errTransient, time.Minute) },
			ReasonRetryAfterExceedsMaxWait, ErrRetryAfterExceedsMaxWait, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				if tt.callerLimit > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.callerLimit)
					defer cancel()
				}
				p := tt.policy
				start := time.Now()
				err := Do(ctx, &p, tt.op)
				var e *Error
				if !errors.As(err, &e) || e.Reason != tt.wantReason {
					t.Fatalf("err = %v, want reason %s", err, tt.wantReason)
				}
				if got := time.Since(start); got != tt.wantAt {
					t.Errorf("stopped at %v, want %v", got, tt.wantAt)
				}
				if !errors.Is(err, tt.wantSentinel) {
					t.Errorf("errors.Is(err, %v) = false", tt.wantSentinel)
				}
				if !errors.Is(err, errTransient) {
					t.Errorf("errors.Is(err, the last attempt's error) = false: %v", err)
				}
				if got := errors.Is(err, context.DeadlineExceeded); got != tt.wantDeadline {
					t.Errorf("errors.Is(err, context.DeadlineExceeded) = %v, want %v", got, tt.wantDeadline)
				}
				// http.Client reports a stop as a *url.Error, whose Timeout asks the error it
				// wraps: a deadline stop is a timeout there as net/http's own are.
				if got := (&url.Error{Op: "Get", URL: "http://example.test/", Err: err}).Timeout(); got != tt.wantDeadline {
					t.Errorf("url.Error{Err: err}.Timeout() = %v, want %v", got, tt.wantDeadline)
				}
				if errors.Is(err, context.Canceled) || errors.Is(err, errServer) {
					t.Errorf("err %v matches an error it is not", err)
				}
			})
		})
	}
}

// Timeout is also true when the loop stopped for another reason after an attempt that timed
// out (its AttemptTimeout passed), as net/http's error for that attempt alone would say, and
// false after an attempt that failed otherwise.
func TestErrorTimeoutFollowsTheLastAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := Policy{MaxAttempts: 2, AttemptTimeout: time.Second, Backoff: constantBackoff(t, time.Second)}
		err := Do(context.Background(), &p, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
		var e *Error
		if !errors.As(err, &e) || e.Reason != ReasonAttemptsExhausted {
			t.Fatalf("err = %v; want attempts_exhausted", err)
		}
		if !e.Timeout() {
			t.Errorf("after attempts that timed out: Timeout() = false, want true")
		}
		err = Do(context.Background(), &p, func(context.Context) error { return errTransient })
		if !errors.As(err, &e) || e.Reason != ReasonAttemptsExhausted {
			t.Fatalf("err = %v; want attempts_exhausted", err)
		}
		if e.Timeout() {
			t.Errorf("after attempts that failed otherwise: Timeout() = true, want false")
		}
	})
}
