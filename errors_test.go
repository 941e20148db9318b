package retry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestEverySentinelMatchesOnlyItsReason(t *testing.T) {
	seen := map[error]Reason{}
	for _, r := range StopReasons {
		s := r.Sentinel()
		if r == ReasonSuccess {
			if s != nil {
				t.Errorf("success has sentinel %v", s)
			}
			continue
		}
		if s == nil || !strings.HasSuffix(s.Error(), string(r)) {
			t.Fatalf("%s: sentinel %v", r, s)
		}
		if other, dup := seen[s]; dup {
			t.Fatalf("%s and %s share a sentinel", r, other)
		}
		seen[s] = r
		err := error(&Error{Reason: r, Err: errTransient})
		for _, r2 := range StopReasons {
			if r2 != ReasonSuccess && errors.Is(err, r2.Sentinel()) != (r2 == r) {
				t.Errorf("errors.Is(%s error, %s sentinel) = %v", r, r2, !(r2 == r))
			}
		}
		if r.IsRetry() {
			t.Errorf("%s.IsRetry() = true", r)
		}
		if r.IsPolicyStop() == (r == ReasonNonRetryableError || r == ReasonNonRetryableStatus) {
			t.Errorf("%s.IsPolicyStop() = %v", r, r.IsPolicyStop())
		}
	}
	for _, r := range []Reason{ReasonRetryableStatus, ReasonRetryableError, ReasonRetryAfter} {
		if !r.IsRetry() || r.IsPolicyStop() || r.Sentinel() != nil {
			t.Errorf("%s misclassified", r)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		e    *Error
		want string
	}{
		{&Error{Reason: ReasonAttemptsExhausted, Attempts: 3, Elapsed: 1500 * time.Millisecond, Status: 503},
			"retry: attempts_exhausted after 3 attempts in 1.5s: status 503"},
		{&Error{Reason: ReasonCanceled, Attempts: 1, Elapsed: time.Second, Err: errTransient, Cause: context.Canceled},
			"retry: canceled after 1 attempt in 1s: connection refused"},
		{&Error{Reason: ReasonCircuitOpen, Elapsed: 0, Cause: nil},
			"retry: circuit_open after 0 attempts in 0s"},
		{&Error{Reason: ReasonDeadlineExceeded, Attempts: 2, Elapsed: 2 * time.Second, Cause: context.DeadlineExceeded},
			"retry: deadline_exceeded after 2 attempts in 2s: context deadline exceeded"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// Marks are found through any wrapping errors.As would see through, and change the class.
func TestMarksThroughWrapping(t *testing.T) {
	p := &Policy{Classifier: func(o Outcome) Class {
		if errors.Is(o.Err, errTransient) {
			return ClassUnspecified
		}
		return ClassPermanent
	}}
	tests := []struct {
		err  error
		want Class
	}{
		{fmt.Errorf("wrapped: %w", Permanent(errTransient)), ClassPermanent},
		{errors.Join(errors.New("other"), UnknownOutcome(errTransient)), ClassUnknown},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", Retryable(errTransient))), ClassRetryable},
		{Retryable(errors.New("the classifier calls this permanent")), ClassRetryable},
		{errors.New("the classifier calls this permanent"), ClassPermanent},
		{errTransient, ClassRetryable},
	}
	for _, tt := range tests {
		if got := p.Classify(Outcome{Err: tt.err}); got != tt.want {
			t.Errorf("Classify(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
	if Permanent(nil) != nil || Retryable(nil) != nil || UnknownOutcome(nil) != nil || After(nil, time.Second) != nil {
		t.Error("marking nil must give nil")
	}
	if w, ok := RetryAfter(fmt.Errorf("x: %w", After(errTransient, 2*time.Second))); !ok || w != 2*time.Second {
		t.Errorf("RetryAfter = %v, %v", w, ok)
	}
	if _, ok := RetryAfter(After(errTransient, -time.Second)); ok {
		t.Error("a negative wait is not a request (SPEC R4.3)")
	}
	if got := Permanent(errTransient).Error(); got != errTransient.Error() {
		t.Errorf("a mark changes the message: %q", got)
	}
}

func TestStringers(t *testing.T) {
	for v, want := range map[fmt.Stringer]string{
		ClassUnspecified: "unspecified", ClassSuccess: "success", ClassRetryable: "retryable",
		ClassPermanent: "permanent", ClassUnknown: "unknown", Class(9): "Class(9)",
		ResultSuccess: "success", ResultFailure: "failure", ResultIgnored: "ignored", Result(9): "Result(?)",
	} {
		if got := v.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

// A derived caller context is marked too, and an attempt context reports its own deadline
// through Err even when nobody asked for Done.
func TestAttemptContexts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type key struct{}
		parent := context.WithValue(context.Background(), key{}, 1)
		_ = Do(parent, &Policy{Timeout: NoLimit}, func(ctx context.Context) error {
			if !InLoop(ctx) || ctx.Value(key{}) != 1 {
				t.Error("marked context lost the mark or the value")
			}
			return nil
		})
		_ = Do(parent, &Policy{Timeout: time.Second}, func(ctx context.Context) error {
			if !InLoop(ctx) || ctx.Value(key{}) != 1 {
				t.Error("attempt context lost the mark or the value")
			}
			time.Sleep(2 * time.Second)
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Errorf("Err after the deadline = %v", ctx.Err())
			}
			select {
			case <-ctx.Done():
			default:
				t.Error("Done open after the deadline")
			}
			return nil
		})
	})
}

// A context derived from an attempt context (net/http derives one per request) attaches to
// it without a goroutine, and ends with it.
func TestDerivedContextNeedsNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_ = Do(context.Background(), &Policy{Timeout: time.Minute}, func(ctx context.Context) error {
			before := runtime.NumGoroutine()
			child, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			if after := runtime.NumGoroutine(); after != before {
				t.Errorf("goroutines %d -> %d", before, after)
			}
			time.Sleep(time.Minute + time.Second)
			if !errors.Is(child.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(child), context.DeadlineExceeded) {
				t.Errorf("child after the deadline: %v, cause %v", child.Err(), context.Cause(child))
			}
			return nil
		})
	})
}

// A context's Err never changes once it is not nil, whatever happens after.
func TestAttemptContextErrIsStable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var kept context.Context
		var during error
		_ = Do(context.Background(), &Policy{MaxAttempts: 1, AttemptTimeout: time.Second}, func(ctx context.Context) error {
			kept = ctx
			time.Sleep(2 * time.Second)
			during = ctx.Err()
			return during
		})
		if after := kept.Err(); during != context.DeadlineExceeded || after != during {
			t.Errorf("Err during the attempt %v, after it %v", during, after)
		}
		_ = Do(context.Background(), &Policy{MaxAttempts: 1, AttemptTimeout: time.Second},
			func(ctx context.Context) error { kept = ctx; return nil })
		first := kept.Err()
		time.Sleep(2 * time.Second)
		<-kept.Done()
		if second := kept.Err(); first != context.Canceled || second != first || context.Cause(kept) != first {
			t.Errorf("Err after the attempt %v, after its deadline %v, cause %v", first, second, context.Cause(kept))
		}
	})
}

// Time spent discarding a value counts: an attempt never starts past the deadline, even
// after a zero wait (SPEC R2.4).
func TestZeroWaitRereadsClockAfterDiscard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		p := &Policy{MaxAttempts: 3, Timeout: time.Second, Backoff: constantBackoff(t, 0)}
		_, final, err := Run(context.Background(), p, Operation[int]{Attempt: func(context.Context) (int, Outcome) {
			calls++
			return 0, Outcome{Status: 503}
		}, Discard: func(int) { time.Sleep(2 * time.Second) }})
		final.End()
		if calls != 1 || !errors.Is(err, ErrDeadlineExceeded) {
			t.Errorf("%d attempts, %v", calls, err)
		}
	})
}

func TestNilPolicyDecides(t *testing.T) {
	if d := Decide(nil, State{Attempt: 1}, Outcome{Status: 503}); !d.Retry || d.Reason != ReasonRetryableStatus {
		t.Errorf("Decide(nil) = %+v", d)
	}
}

func TestMetricsWaitTotalSaturates(t *testing.T) {
	m := new(Metrics)
	for range 3 {
		m.Observe(context.Background(), Decision{Retry: true, Wait: math.MaxInt64 / 2})
	}
	if got := m.Snapshot().WaitTotal; got != math.MaxInt64 {
		t.Errorf("WaitTotal = %v, want the saturated maximum", got)
	}
}
