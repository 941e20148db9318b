package retry

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// Under an outer loop that retries by itself (an SDK's own), the loop makes the one attempt
// it is given, numbered as the outer loop numbers it, decides after it as after that
// attempt of its own, and leaves a retry to the outer loop (issue 32 items 3 and 4; SPEC
// R7.3): one decision a run, one stop a call.
func TestOuterAttempt(t *testing.T) {
	run := func(p *Policy, attempt int, o Outcome) (int, Decision, int, error) {
		var l Loop
		calls := 0
		v, final, err := RunIn(context.Background(), &l, p, Operation[int]{OuterAttempt: attempt,
			Attempt: func(context.Context) (int, Outcome) { calls++; return 7, o }})
		final.End()
		if v != 7 && calls > 0 {
			t.Errorf("the attempt's value %d did not come back", v)
		}
		return calls, l.Decision(), v, err
	}
	t.Run("a retry is left to the outer loop, numbered as it numbers it", func(t *testing.T) {
		var records []Decision
		p := &Policy{OnDecision: func(_ context.Context, d Decision) { records = append(records, d) }, Budget: NoBudget}
		calls, d, _, err := run(p, 2, Outcome{Status: 503})
		if calls != 1 || !errors.Is(err, ErrOuterRetry) || !d.Retry || d.Attempt != 2 || d.Wait != 0 || len(records) != 1 {
			t.Errorf("calls %d, err %v, decision %+v, %d records", calls, err, d, len(records))
		}
	})
	t.Run("the server's wait is handed on; a backoff is not", func(t *testing.T) {
		_, d, _, err := run(&Policy{Budget: NoBudget, RetryAfterSpread: None}, 1,
			Outcome{Status: 429, RetryAfter: 1500 * time.Millisecond, HasRetryAfter: true})
		if !errors.Is(err, ErrOuterRetry) || d.Wait != 1500*time.Millisecond || d.Reason != ReasonRetryAfter {
			t.Errorf("err %v, decision %+v", err, d)
		}
	})
	t.Run("the outer loop's last attempt of the policy stops", func(t *testing.T) {
		calls, d, _, err := run(&Policy{MaxAttempts: 3}, 3, Outcome{Status: 503})
		if calls != 1 || !errors.Is(err, ErrAttemptsExhausted) || d.Attempt != 3 {
			t.Errorf("calls %d, err %v, decision %+v", calls, err, d)
		}
	})
	t.Run("the budget is asked when the retry is decided, not when the outer loop's next attempt starts", func(t *testing.T) {
		b := &countingBudget{allow: 1}
		_, d, _, err := run(&Policy{Budget: b}, 1, Outcome{Status: 503})
		if !errors.Is(err, ErrOuterRetry) || b.allow != 0 || !slices.Equal(b.retries, []bool{false}) {
			t.Fatalf("first: err %v, decision %+v, budget %+v", err, d, b)
		}
		_, d, _, err = run(&Policy{Budget: b}, 2, Outcome{Status: 503})
		if !errors.Is(err, ErrRetryBudgetExhausted) || d.NoAttempt || d.Attempt != 2 || b.allow != -1 ||
			!slices.Equal(b.retries, []bool{false, true}) {
			t.Fatalf("second: err %v, decision %+v, budget %+v", err, d, b)
		}
	})
	t.Run("a throttle's retry is never refused by the budget", func(t *testing.T) {
		b := &countingBudget{allow: 0}
		_, d, _, err := run(&Policy{Budget: b}, 1, Outcome{Status: 429})
		if !errors.Is(err, ErrOuterRetry) || b.allow != 0 || !d.Throttled {
			t.Fatalf("err %v, decision %+v, budget %+v", err, d, b)
		}
	})
}

// A retry that waits what the server asked is not refused by the retry budget, as if the
// service were sick: 2,000 calls on one Policy answered 503 with Retry-After: 1 all get
// their retry (issue 32 item 1). A retry on the backoff alone still is.
func TestServerPacedRetryPassesTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			o      Outcome
			second int
		}{
			{Outcome{Status: 503, RetryAfter: time.Second, HasRetryAfter: true}, 2000},
			{Outcome{Status: 429}, 2000},
			{Outcome{Status: 503}, 20},
		} {
			p := &Policy{MaxAttempts: 2}
			seconds := 0
			done := make(chan bool)
			for range 2000 {
				go func() {
					n := 0
					Run(context.Background(), p, Operation[int]{Attempt: func(context.Context) (int, Outcome) {
						n++
						if n == 1 {
							return 0, tc.o
						}
						return 0, Outcome{}
					}})
					done <- n == 2
				}()
			}
			for range 2000 {
				if <-done {
					seconds++
				}
			}
			if seconds != tc.second {
				t.Errorf("%+v: %d of 2,000 calls made their retry, want %d", tc.o, seconds, tc.second)
			}
		}
	})
}

// A driver that runs a Loop by hand on its own clock (the command line's simulator) gets
// from SetOuterAttempt what Run gets from Operation.OuterAttempt: the attempt numbered as
// the outer loop numbers it, a retry left to the outer loop with only the server's or the
// rate gate's wait, the rate gate's time for it given back; the outer loop's last attempt
// stops (issue 32 item 9).
func TestSetOuterAttempt(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		attempt   int
		gateFrom  time.Duration // the rate gate's time for the retry
		outcome   Outcome
		wantRetry bool
		wantWait  time.Duration
	}{
		{"a backoff is the outer loop's", 2, 0, Outcome{Status: 503}, true, 0},
		{"the server's wait is handed on", 1, 0, Outcome{Status: 429, RetryAfter: 1500 * time.Millisecond, HasRetryAfter: true}, true, 1500 * time.Millisecond},
		{"the rate gate's wait is handed on", 1, 2 * time.Second, Outcome{Status: 429}, true, 2 * time.Second},
		{"the outer loop's last attempt of the policy stops", 3, 0, Outcome{Status: 503}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gate := &fixedGate{}
			p := &Policy{Budget: NoBudget, RetryAfterSpread: None, RateGate: gate}
			l, err := NewLoop(p, start, time.Time{}, false)
			if err != nil {
				t.Fatal(err)
			}
			l.SetOuterAttempt(tc.attempt)
			step := l.Next(start)
			if step.Action != ActionAttempt || step.Attempt != tc.attempt {
				t.Fatalf("step %+v, want attempt %d", step, tc.attempt)
			}
			end := start.Add(10 * time.Millisecond)
			gate.from = end.Add(tc.gateFrom)
			d := l.Done(end, tc.outcome, nil)
			if d.Retry != tc.wantRetry || d.Wait != tc.wantWait || d.Attempt != tc.attempt {
				t.Errorf("decision %+v, want retry %v after %v, attempt %d", d, tc.wantRetry, tc.wantWait, tc.attempt)
			}
			if n := gate.openReservations(); n != 0 {
				t.Errorf("%d reservations of the rate gate left open", n)
			}
		})
	}
}
