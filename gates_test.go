package retry

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// scriptedBreaker admits according to a script of answers and records what it is told.
type scriptedBreaker struct {
	answers []bool          // admit or not, one per Allow call; then admit
	retryIn []time.Duration // retryIn for each refusal
	results []Result
}

func (b *scriptedBreaker) Allow() (uint64, bool, time.Duration) {
	if len(b.answers) == 0 {
		return 7, true, 0
	}
	ok := b.answers[0]
	b.answers = b.answers[1:]
	if ok {
		return 7, true, 0
	}
	in := b.retryIn[0]
	b.retryIn = b.retryIn[1:]
	return 0, false, in
}

func (b *scriptedBreaker) Done(token uint64, r Result) {
	if token != 7 {
		panic("wrong token")
	}
	b.results = append(b.results, r)
}

type countingBudget struct {
	allow   int
	retries []bool
	results []Result
}

func (b *countingBudget) AllowRetry() bool {
	b.allow--
	return b.allow >= 0
}

func (b *countingBudget) Done(retry bool, r Result) {
	b.retries = append(b.retries, retry)
	b.results = append(b.results, r)
}

func TestBreakerRefusesBeyondDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &scriptedBreaker{answers: []bool{false}, retryIn: []time.Duration{time.Minute}}
		calls := 0
		start := time.Now()
		err := Do(context.Background(), &Policy{Timeout: 10 * time.Second, Breaker: b}, func(context.Context) error { calls++; return nil })
		var e *Error
		if calls != 0 || !errors.As(err, &e) || e.Reason != ReasonCircuitOpen || e.Attempts != 0 || time.Since(start) != 0 {
			t.Errorf("calls %d, err %v after %v", calls, err, time.Since(start))
		}
		if !errors.Is(err, ErrCircuitOpen) {
			t.Errorf("err %v does not match ErrCircuitOpen", err)
		}
	})
}

// With BreakerWait, a loop waits for a breaker that admits a trial in time; the zero
// BreakerWait stops at once instead (TestZeroPolicyBreakerFailsFast).
func TestBreakerWaitedForWhenTrialFits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &scriptedBreaker{answers: []bool{true, false}, retryIn: []time.Duration{2 * time.Second}}
		calls := 0
		start := time.Now()
		err := Do(context.Background(), &Policy{Timeout: 10 * time.Second, Breaker: b, BreakerWait: 5 * time.Second,
			Backoff: constantBackoff(t, time.Second)},
			func(context.Context) error {
				calls++
				if calls == 1 {
					return errTransient
				}
				return nil
			})
		// Attempt 1 at 0 fails; wait 1 s; breaker says 2 s more; attempt 2 at 3 s succeeds.
		if err != nil || calls != 2 || time.Since(start) != 3*time.Second {
			t.Errorf("calls %d, err %v after %v", calls, err, time.Since(start))
		}
		if want := []Result{ResultFailure, ResultSuccess}; len(b.results) != 2 || b.results[0] != want[0] || b.results[1] != want[1] {
			t.Errorf("breaker told %v, want %v", b.results, want)
		}
	})
}

func TestBreakerNotToldCallerCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &scriptedBreaker{}
		ctx, cancel := context.WithCancel(context.Background())
		_ = Do(ctx, &Policy{Breaker: b}, func(context.Context) error { cancel(); return context.Canceled })
		if len(b.results) != 1 || b.results[0] != ResultIgnored {
			t.Errorf("breaker told %v, want [ignored]", b.results)
		}
	})
}

func TestBudgetStopsRetryBeforeWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bud := &countingBudget{allow: 1}
		calls := 0
		start := time.Now()
		err := Do(context.Background(), &Policy{MaxAttempts: 5, Budget: bud, Backoff: constantBackoff(t, time.Second)},
			func(context.Context) error { calls++; return errTransient })
		// One retry allowed: attempts at 0 and 1 s, then the budget refuses with no wait.
		if calls != 2 || !errors.Is(err, ErrRetryBudgetExhausted) || time.Since(start) != time.Second {
			t.Errorf("calls %d, err %v after %v", calls, err, time.Since(start))
		}
		if len(bud.retries) != 2 || bud.retries[0] || !bud.retries[1] {
			t.Errorf("budget told retries %v", bud.retries)
		}
	})
}

// Decisions say how long their attempt ran, and mark the stops made without an attempt.
func TestAttemptDurationAndNoAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var got []Decision
		p := &Policy{Backoff: constantBackoff(t, 10*time.Second), OnDecision: func(_ context.Context, d Decision) { got = append(got, d) }}
		time.AfterFunc(5*time.Second, cancel)
		_ = Do(ctx, p, func(context.Context) error { time.Sleep(2 * time.Second); return errTransient })
		if len(got) != 2 || got[0].AttemptDuration != 2*time.Second || got[0].NoAttempt ||
			!got[1].NoAttempt || got[1].AttemptDuration != 0 || got[1].Attempt != 1 || got[1].Reason != ReasonCanceled {
			t.Errorf("decisions = %+v", got)
		}
	})
}

func TestResultOf(t *testing.T) {
	tests := []struct {
		c           Class
		interrupted bool
		want        Result
	}{
		{ClassSuccess, false, ResultSuccess}, {ClassSuccess, true, ResultSuccess},
		{ClassPermanent, false, ResultSuccess}, {ClassPermanent, true, ResultIgnored},
		{ClassRetryable, false, ResultFailure}, {ClassRetryable, true, ResultIgnored},
		{ClassUnknown, false, ResultFailure}, {ClassUnknown, true, ResultIgnored},
	}
	for _, tt := range tests {
		if got := ResultOf(tt.c, tt.interrupted); got != tt.want {
			t.Errorf("ResultOf(%v, %v) = %v, want %v", tt.c, tt.interrupted, got, tt.want)
		}
	}
	var nilPolicy *Policy
	if got := nilPolicy.Classify(Outcome{Status: 503}); got != ClassRetryable {
		t.Errorf("nil policy classifies 503 as %v", got)
	}
}

// A breaker's refusal in a loop without a deadline still reports the true elapsed time.
func TestBreakerStopElapsedWithoutDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &scriptedBreaker{answers: []bool{true, false}, retryIn: []time.Duration{-1}}
		p := &Policy{Timeout: NoLimit, Breaker: b, Backoff: constantBackoff(t, time.Second)}
		err := Do(context.Background(), p, func(context.Context) error { time.Sleep(time.Second); return errTransient })
		var e *Error
		if !errors.As(err, &e) || e.Reason != ReasonCircuitOpen || e.Elapsed != 2*time.Second || e.Attempts != 1 {
			t.Errorf("err %v, Elapsed %v", err, e.Elapsed)
		}
	})
}

// reservingBreaker is a scriptedBreaker that reports when it admits (AdmissionReporter) and
// gives places to wait for a trial call by a script (TrialReserver).
type reservingBreaker struct {
	scriptedBreaker
	in       time.Duration // RetryIn after the first Done
	places   []bool        // ReserveTrial's answers, in turn; then false
	reserved int
}

func (b *reservingBreaker) RetryIn() time.Duration { return b.in }

func (b *reservingBreaker) ReserveTrial() bool {
	ok := b.reserved < len(b.places) && b.places[b.reserved]
	b.reserved++
	return ok
}

// A loop that must wait for its breaker beyond its backoff asks for a place to wait, after
// a failed attempt (Decide's check 8) or before one: refused, it stops at once with
// circuit_open and the breaker's time as RetryAfter; given one, it waits, and asks no more.
func TestBreakerWaitNeedsAPlace(t *testing.T) {
	for _, tc := range []struct {
		name     string
		places   []bool
		attempts int
		took     time.Duration
	}{
		{"a place: wait 1 s of backoff and 2 s more", []bool{true}, 2, 3 * time.Second},
		{"no place: stop after the failed attempt", []bool{false}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := &reservingBreaker{scriptedBreaker: scriptedBreaker{answers: []bool{true, false}, retryIn: []time.Duration{2 * time.Second}},
					in: 3 * time.Second, places: tc.places}
				calls := 0
				start := time.Now()
				err := Do(context.Background(), &Policy{Breaker: b, BreakerWait: NoLimit, Backoff: constantBackoff(t, time.Second)},
					func(context.Context) error {
						if calls++; calls == 1 {
							return errTransient
						}
						return nil
					})
				if calls != tc.attempts || time.Since(start) != tc.took || b.reserved != 1 {
					t.Errorf("%d attempts after %v, %d places asked, err %v; want %d after %v, 1 asked", calls, time.Since(start), b.reserved, err, tc.attempts, tc.took)
				}
				if tc.attempts == 1 {
					var e *Error
					if !errors.As(err, &e) || e.Reason != ReasonCircuitOpen || e.RetryAfterFrom() != "circuit-breaker" {
						t.Errorf("err %v; want circuit_open with the breaker's RetryAfter", err)
					} else if in, _ := e.RetryAfter(); in != 3*time.Second {
						t.Errorf("RetryAfter %v, want 3s", in)
					}
				}
			})
		})
	}
	// Before the first attempt: no place, no wait.
	synctest.Test(t, func(t *testing.T) {
		b := &reservingBreaker{scriptedBreaker: scriptedBreaker{answers: []bool{false}, retryIn: []time.Duration{time.Second}}}
		err := Do(context.Background(), &Policy{Breaker: b, BreakerWait: NoLimit}, func(context.Context) error { return nil })
		if !errors.Is(err, ErrCircuitOpen) || b.reserved != 1 {
			t.Errorf("err %v, %d places asked; want circuit_open after asking for 1", err, b.reserved)
		}
	})
}
