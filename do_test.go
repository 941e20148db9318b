package retry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// attemptLog records, for every attempt, when it started (seconds since the loop started)
// and how long its context had before its deadline.
type attemptLog struct {
	start  time.Time
	starts []time.Duration
	budget []time.Duration
}

func (l *attemptLog) record(ctx context.Context) {
	l.starts = append(l.starts, time.Since(l.start))
	if d, ok := ctx.Deadline(); ok {
		l.budget = append(l.budget, time.Until(d))
	} else {
		l.budget = append(l.budget, -1)
	}
}

// SPEC R4.5 end to end, through Run under a fake clock: deadline 10 s; attempt 1 fails at
// t=0; attempt 2 starts at t=3 and gets 503; with Retry-After 120 the loop stops at t=3;
// with Retry-After 3 attempt 3 starts at t=6 with exactly 4 s left, less than its 5 s attempt
// timeout (SPEC R2.2). The seed's timeline has no Retry-After spread: it is turned off.
func TestTimelineR45(t *testing.T) {
	for _, tc := range []struct {
		name        string
		retryAfter  time.Duration
		wantStarts  []time.Duration
		wantBudgets []time.Duration
		wantEnd     time.Duration
		wantReason  Reason
	}{
		{"Retry-After 120", 120 * time.Second, []time.Duration{0, 3 * time.Second}, []time.Duration{5 * time.Second, 5 * time.Second}, 3 * time.Second, ReasonRetryAfterExceedsDeadline},
		{"Retry-After 3", 3 * time.Second, []time.Duration{0, 3 * time.Second, 6 * time.Second}, []time.Duration{5 * time.Second, 5 * time.Second, 4 * time.Second}, 6 * time.Second, ReasonAttemptsExhausted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &Policy{MaxAttempts: 3, Timeout: 10 * time.Second, AttemptTimeout: 5 * time.Second,
					Backoff: constantBackoff(t, 3*time.Second), RetryAfterSpread: None}
				var decisions []Decision
				p.OnDecision = func(_ context.Context, d Decision) { decisions = append(decisions, d) }
				log := &attemptLog{start: time.Now()}
				_, final, err := Run(context.Background(), p, Operation[int]{Attempt: func(ctx context.Context) (int, Outcome) {
					log.record(ctx)
					switch len(log.starts) {
					case 1:
						return 0, Outcome{Err: errTransient}
					case 2:
						return 503, Outcome{Status: 503, RetryAfter: tc.retryAfter, HasRetryAfter: true}
					default:
						return 503, Outcome{Status: 503}
					}
				}})
				final.End()
				if !equalDurations(log.starts, tc.wantStarts) {
					t.Errorf("attempts started at %v, want %v", log.starts, tc.wantStarts)
				}
				if !equalDurations(log.budget, tc.wantBudgets) {
					t.Errorf("attempt contexts had %v before their deadline, want %v", log.budget, tc.wantBudgets)
				}
				if end := time.Since(log.start); end != tc.wantEnd {
					t.Errorf("Run returned at t=%v, want %v", end, tc.wantEnd)
				}
				var e *Error
				if !errors.As(err, &e) || e.Reason != tc.wantReason || !errors.Is(err, tc.wantReason.Sentinel()) {
					t.Fatalf("err = %v, want reason %s", err, tc.wantReason)
				}
				if e.Status != 503 || e.Attempts != len(tc.wantStarts) {
					t.Errorf("Error = %+v", e)
				}
				last := decisions[len(decisions)-1]
				if last.Retry || last.Reason != tc.wantReason {
					t.Errorf("last decision = %+v", last)
				}
			})
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// SPEC R2.2, R2.5: the attempt timeout and the overall deadline cancel work in flight; a fresh
// attempt timeout never extends the operation past its deadline.
func TestDeadlineCancelsAttemptInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &Policy{MaxAttempts: 10, Timeout: 10 * time.Second, AttemptTimeout: 4 * time.Second,
			Backoff: constantBackoff(t, time.Second)}
		log := &attemptLog{start: time.Now()}
		err := Do(context.Background(), p, func(ctx context.Context) error {
			log.record(ctx)
			<-ctx.Done()
			return ctx.Err()
		})
		// Attempts at 0 (times out at 4), 5 (times out at 9); the 1 s wait from t=9 would
		// leave no time, so the loop stops at t=9 without sleeping into the deadline.
		if want := []time.Duration{0, 5 * time.Second}; !equalDurations(log.starts, want) {
			t.Errorf("attempts at %v, want %v", log.starts, want)
		}
		if want := []time.Duration{4 * time.Second, 4 * time.Second}; !equalDurations(log.budget, want) {
			t.Errorf("budgets %v, want %v", log.budget, want)
		}
		if end := time.Since(log.start); end != 9*time.Second {
			t.Errorf("returned at %v, want 9s", end)
		}
		if !errors.Is(err, ErrWaitExceedsDeadline) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestOverallDeadlineEndsLastAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &Policy{MaxAttempts: NoLimit, Timeout: 3 * time.Second}
		start := time.Now()
		err := Do(context.Background(), p, func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})
		if time.Since(start) != 3*time.Second || !errors.Is(err, ErrDeadlineExceeded) {
			t.Errorf("after %v: %v", time.Since(start), err)
		}
		var e *Error
		if errors.As(err, &e); e.Cause != nil {
			t.Errorf("the policy's own timeout is not the caller's context: Cause = %v", e.Cause)
		}
	})
}

// SPEC R2.8: cancelling the caller's context ends a wait at once; the error matches both
// context.Canceled and the last attempt's error.
func TestCancelDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		p := &Policy{Backoff: constantBackoff(t, 20*time.Second)}
		var decisions []Decision
		p.OnDecision = func(_ context.Context, d Decision) { decisions = append(decisions, d) }
		start := time.Now()
		time.AfterFunc(1500*time.Millisecond, cancel)
		err := Do(ctx, p, func(context.Context) error { return errTransient })
		if got := time.Since(start); got != 1500*time.Millisecond {
			t.Errorf("returned after %v, want 1.5s", got)
		}
		if !errors.Is(err, ErrCanceled) || !errors.Is(err, context.Canceled) || !errors.Is(err, errTransient) {
			t.Errorf("err = %v", err)
		}
		if errors.Unwrap(err) != errTransient {
			t.Errorf("Unwrap = %v", errors.Unwrap(err))
		}
		if len(decisions) != 2 || decisions[1].Reason != ReasonCanceled || decisions[1].Attempt != 1 {
			t.Errorf("decisions = %+v", decisions)
		}
	})
}

func TestCallerDeadlineDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		p := &Policy{Backoff: constantBackoff(t, time.Second), MaxAttempts: NoLimit}
		start := time.Now()
		attempts := 0
		err := Do(ctx, p, func(context.Context) error { attempts++; return errTransient })
		// Attempts at 0 and 1; a wait from 1 to 2 would leave nothing: stop at t=1.
		if got := time.Since(start); got != time.Second || attempts != 2 {
			t.Errorf("returned after %v with %d attempts", got, attempts)
		}
		if !errors.Is(err, ErrWaitExceedsDeadline) {
			t.Errorf("err = %v", err)
		}
	})
}

// SPEC R2.4: after waking from a wait the loop checks the deadline again. A hook that blocks
// for 9 s stands in for a process suspended during the wait.
func TestDeadlineCheckedAfterWaking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &Policy{Timeout: 10 * time.Second, Backoff: constantBackoff(t, time.Second)}
		var reasons []Reason
		p.OnDecision = func(_ context.Context, d Decision) {
			reasons = append(reasons, d.Reason)
			if d.Retry {
				time.Sleep(9 * time.Second)
			}
		}
		attempts := 0
		start := time.Now()
		err := Do(context.Background(), p, func(context.Context) error { attempts++; return errTransient })
		if attempts != 1 || time.Since(start) != 10*time.Second || !errors.Is(err, ErrDeadlineExceeded) {
			t.Errorf("attempts %d, after %v: %v", attempts, time.Since(start), err)
		}
		if want := []Reason{ReasonRetryableError, ReasonDeadlineExceeded}; len(reasons) != 2 || reasons[1] != want[1] {
			t.Errorf("reasons %v, want %v", reasons, want)
		}
	})
}

func TestDoSucceedsAfterRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := new(Metrics)
		p := &Policy{MaxAttempts: 4, Backoff: constantBackoff(t, 250*time.Millisecond), OnDecision: m.Observe}
		attempts := 0
		v, err := DoValue(context.Background(), p, func(context.Context) (string, error) {
			attempts++
			if attempts < 3 {
				return "", errTransient
			}
			return "ok", nil
		})
		if v != "ok" || err != nil || attempts != 3 {
			t.Fatalf("DoValue = %q, %v after %d attempts", v, err, attempts)
		}
		s := m.Snapshot()
		if s.Attempts != 3 || s.Retries != 2 || s.SuccessesAfterRetry != 1 || s.Stops[ReasonSuccess] != 1 ||
			s.WaitTotal != 500*time.Millisecond || s.WaitCounts[4] != 2 {
			t.Errorf("metrics = %+v", s)
		}
	})
}

func TestPermanentStopsAtOnce(t *testing.T) {
	attempts := 0
	err := Do(context.Background(), nil, func(context.Context) error {
		attempts++
		return Permanent(errTransient)
	})
	if attempts != 1 || !errors.Is(err, ErrNonRetryableError) || !errors.Is(err, errTransient) {
		t.Errorf("%d attempts: %v", attempts, err)
	}
	if got, want := err.Error(), "retry: non_retryable_error after 1 attempt in "; !strings.HasPrefix(got, want) || !strings.HasSuffix(got, ": connection refused") {
		t.Errorf("Error() = %q", got)
	}
}

func TestInvalidPolicyRunsNothing(t *testing.T) {
	called := false
	err := Do(context.Background(), &Policy{MaxAttempts: -5}, func(context.Context) error { called = true; return nil })
	if called || !errors.Is(err, ErrInvalidPolicy) {
		t.Errorf("called=%v err=%v", called, err)
	}
}

func TestDoFallback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v, err := DoFallback(context.Background(), &Policy{MaxAttempts: 2},
			func(context.Context) (string, error) { return "", errTransient },
			func(_ context.Context, err error) (string, error) {
				if !errors.Is(err, ErrAttemptsExhausted) {
					t.Errorf("fallback got %v", err)
				}
				return "cached", nil
			})
		if v != "cached" || err != nil {
			t.Errorf("DoFallback = %q, %v", v, err)
		}
	})
}

// SPEC R7.3: an inner loop sees the outer one through its context; the record says so, and
// NestedSingleAttempt leaves the retrying to the outer loop.
func TestNestedLoops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, mode := range []Nested{NestedRetry, NestedSingleAttempt} {
			calls := 0
			var innerNested []bool
			inner := &Policy{MaxAttempts: 3, Nested: mode, Backoff: constantBackoff(t, time.Millisecond),
				OnDecision: func(_ context.Context, d Decision) { innerNested = append(innerNested, d.Nested) }}
			outer := &Policy{MaxAttempts: 3, Backoff: constantBackoff(t, time.Millisecond)}
			_ = Do(context.Background(), outer, func(ctx context.Context) error {
				if !InLoop(ctx) {
					t.Error("InLoop is false inside an attempt")
				}
				return Do(ctx, inner, func(context.Context) error { calls++; return errTransient })
			})
			want := 9
			if mode == NestedSingleAttempt {
				want = 3
			}
			if calls != want {
				t.Errorf("mode %d: %d calls at the bottom, want %d", mode, calls, want)
			}
			for _, n := range innerNested {
				if !n {
					t.Errorf("mode %d: inner decision not marked nested", mode)
				}
			}
		}
		if InLoop(context.Background()) {
			t.Error("InLoop(Background) is true")
		}
	})
}

// Attempts that follow each other with no wait share the loop's context, with the loop's
// deadline: one deadline timer a loop, not one an attempt (issue 34); it lives until Run's
// final.End is called. A loop that waits ends its context first, so that a waiting loop holds
// no context, timer or registration with the caller's (issue 34's waiting loop), and the next
// attempt gets a new one with the same deadline. An attempt with an AttemptTimeout has a
// context of its own, canceled when it returns, so that work it started stops.
func TestAttemptContextLifetime(t *testing.T) {
	run := func(t *testing.T, p *Policy) ([]context.Context, Final) {
		var kept []context.Context
		_, final, err := Run(context.Background(), p, Operation[int]{Attempt: func(ctx context.Context) (int, Outcome) {
			kept = append(kept, ctx)
			if len(kept) == 1 {
				return 0, Outcome{Err: errTransient}
			}
			return 1, Outcome{}
		}})
		if err != nil {
			t.Fatal(err)
		}
		return kept, final
	}
	endsAtEnd := func(t *testing.T, ctx context.Context, final Final) {
		t.Helper()
		if ctx.Err() != nil {
			t.Errorf("the context ended before End: %v", ctx.Err())
		}
		done := ctx.Done()
		final.End()
		<-done
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("after End: %v", ctx.Err())
		}
	}
	noWait := constantBackoff(t, 0)
	t.Run("back to back: the loop's one context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			kept, final := run(t, &Policy{Backoff: noWait})
			if kept[0] != kept[1] {
				t.Error("the attempts have contexts of their own")
			}
			if dl, ok := kept[1].Deadline(); !ok || !dl.Equal(start.Add(DefaultTimeout)) {
				t.Errorf("the context's deadline: %v %v, want the loop's", dl, ok)
			}
			endsAtEnd(t, kept[1], final)
		})
	})
	t.Run("a wait ends the context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			kept, final := run(t, &Policy{Backoff: constantBackoff(t, time.Second)})
			if !errors.Is(kept[0].Err(), context.Canceled) {
				t.Errorf("the first attempt's context after the wait: %v, want canceled", kept[0].Err())
			}
			for i, ctx := range kept {
				if dl, ok := ctx.Deadline(); !ok || !dl.Equal(start.Add(DefaultTimeout)) {
					t.Errorf("attempt %d's deadline: %v %v, want the loop's", i+1, dl, ok)
				}
			}
			endsAtEnd(t, kept[1], final)
		})
	})
	t.Run("an attempt timeout's own context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			kept, final := run(t, &Policy{Backoff: constantBackoff(t, time.Second), AttemptTimeout: 5 * time.Second})
			if !errors.Is(kept[0].Err(), context.Canceled) {
				t.Errorf("first attempt's context: %v", kept[0].Err())
			}
			if kept[1].Err() != nil {
				t.Errorf("final attempt's context ended before End: %v", kept[1].Err())
			}
			done := kept[1].Done()
			final.End()
			<-done
			if !errors.Is(kept[1].Err(), context.Canceled) {
				t.Errorf("after End: %v", kept[1].Err())
			}
		})
	})
}

func TestAttemptContextFollowsParent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type key struct{}
		ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
		err := Do(ctx, &Policy{}, func(ctx context.Context) error {
			if ctx.Value(key{}) != "v" {
				t.Error("value lost")
			}
			time.AfterFunc(time.Second, cancel)
			<-ctx.Done()
			return context.Cause(ctx)
		})
		if !errors.Is(err, ErrCanceled) || !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestLoggerWritesRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug,
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}}))
		p := &Policy{MaxAttempts: 2, Timeout: 10 * time.Second, Backoff: constantBackoff(t, time.Second), OnDecision: LogDecisions(logger)}
		_ = Do(context.Background(), p, func(context.Context) error { return errTransient })
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		want := []string{
			`{"level":"DEBUG","msg":"retry","decision":{"attempt":1,"error":"connection refused","elapsed_ms":0,"remaining_ms":10000,"wait_ms":1000,"decision":"retry","reason":"retryable_error","outcome":"failure"}}`,
			`{"level":"INFO","msg":"retry stop","decision":{"attempt":2,"error":"connection refused","elapsed_ms":1000,"remaining_ms":9000,"decision":"stop","reason":"attempts_exhausted","outcome":"failure"}}`,
		}
		if len(lines) != len(want) {
			t.Fatalf("log:\n%s", buf.String())
		}
		for i := range want {
			if lines[i] != want[i] {
				t.Errorf("line %d\n got %s\nwant %s", i, lines[i], want[i])
			}
			if !json.Valid([]byte(lines[i])) {
				t.Errorf("line %d is not JSON", i)
			}
		}
	})
}

// A caller that has given up before the loop starts gets no attempt at all (SPEC R2.8).
func TestCanceledBeforeFirstAttempt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	var got []Decision
	err := Do(ctx, &Policy{OnDecision: func(_ context.Context, d Decision) { got = append(got, d) }}, func(context.Context) error { calls++; return nil })
	var e *Error
	if calls != 0 || !errors.As(err, &e) || e.Reason != ReasonCanceled || e.Attempts != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("calls %d, err %v", calls, err)
	}
	if len(got) != 1 || !got[0].NoAttempt || got[0].Reason != ReasonCanceled {
		t.Errorf("decisions %+v", got)
	}
}

// Nil operations are errors, not panics.
func TestNilOperation(t *testing.T) {
	ctx := context.Background()
	if err := Do(ctx, nil, nil); !errors.Is(err, ErrNilOperation) {
		t.Errorf("Do: %v", err)
	}
	if _, err := DoValue[int](ctx, nil, nil); !errors.Is(err, ErrNilOperation) {
		t.Errorf("DoValue: %v", err)
	}
	if _, _, err := Run(ctx, nil, Operation[int]{}); !errors.Is(err, ErrNilOperation) {
		t.Errorf("Run: %v", err)
	}
	if _, err := DoFallback(ctx, nil, func(context.Context) (int, error) { return 1, nil }, nil); !errors.Is(err, ErrNilOperation) {
		t.Errorf("DoFallback: %v", err)
	}
	called := false
	_, err := DoFallback(ctx, &Policy{MaxAttempts: -3}, func(context.Context) (int, error) { return 1, nil },
		func(context.Context, error) (int, error) { called = true; return 2, nil })
	if called || !errors.Is(err, ErrInvalidPolicy) {
		t.Errorf("DoFallback with an invalid policy: called=%v err=%v", called, err)
	}
}

// A loop with no deadline and no observer reads the clock only at its start and its stop,
// yet its Error's Elapsed covers attempts and waits exactly.
func TestElapsedWithoutDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &Policy{MaxAttempts: 3, Timeout: NoLimit, Backoff: constantBackoff(t, time.Second)}
		err := Do(context.Background(), p, func(context.Context) error { time.Sleep(time.Second); return errTransient })
		var e *Error
		if !errors.As(err, &e) || e.Elapsed != 5*time.Second || e.Attempts != 3 || e.Reason != ReasonAttemptsExhausted {
			t.Errorf("err %v, Elapsed %v", err, e.Elapsed)
		}
	})
}

// Loop.Reset starts a used Loop over exactly as NewLoop would.
func TestLoopReset(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &Policy{MaxAttempts: 2, Timeout: time.Minute}
	var l Loop
	if err := l.Reset(p, start, time.Time{}, false); err != nil {
		t.Fatal(err)
	}
	l.Next(start)
	l.Done(start.Add(time.Second), Outcome{Status: 503}, nil)
	if err := l.Reset(p, start.Add(time.Hour), time.Time{}, true); err != nil {
		t.Fatal(err)
	}
	fresh, _ := NewLoop(p, start.Add(time.Hour), time.Time{}, true)
	if l.State() != fresh.State() || !reflect.DeepEqual(l.Decision(), fresh.Decision()) {
		t.Errorf("after Reset: state %+v, decision %+v; NewLoop gives %+v, %+v", l.State(), l.Decision(), fresh.State(), fresh.Decision())
	}
	if step := l.Next(start.Add(time.Hour)); step.Action != ActionAttempt || step.Attempt != 1 {
		t.Errorf("first step after Reset %+v, want attempt 1", step)
	}
	if err := l.Reset(&Policy{MaxAttempts: -5}, start, time.Time{}, false); !errors.Is(err, ErrInvalidPolicy) {
		t.Errorf("Reset with an invalid policy: %v, want ErrInvalidPolicy", err)
	}
}
