package retry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/retrykit/retry/backoff"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func at(seconds float64) time.Time { return t0.Add(time.Duration(seconds * float64(time.Second))) }

func constantBackoff(t testing.TB, d time.Duration) backoff.Strategy {
	t.Helper()
	s, err := backoff.New(backoff.Config{Kind: backoff.Constant, Base: d, Jitter: backoff.NoJitter})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var errTransient = errors.New("connection refused")

// TestDecideTable states the seeds' rules directly on the pure decision function. Every row
// names the SPEC requirement it checks.
func TestDecideTable(t *testing.T) {
	// The seed's timeline waits exactly the Retry-After: the spread is off (see
	// TestRetryAfterSpread for it).
	timeline := &Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Backoff: constantBackoff(t, 3*time.Second),
		RetryAfterSpread: NoRetryAfterSpread}
	twoAttempts := &Policy{MaxAttempts: 2, Timeout: 10 * time.Second, Backoff: constantBackoff(t, 3*time.Second),
		RetryAfterSpread: NoRetryAfterSpread}
	roomy := &Policy{MaxAttempts: 5, Timeout: 10 * time.Second, MaxWait: 5 * time.Second, MinAttemptTime: time.Second,
		Backoff: constantBackoff(t, 2*time.Second)}
	unlimited := &Policy{MaxAttempts: Unlimited, Timeout: NoLimit, Backoff: constantBackoff(t, time.Second)}
	withDeadline := func(attempt int, now float64) State {
		return State{Attempt: attempt, Start: t0, Now: at(now), Deadline: at(10)}
	}
	ra := func(status int, seconds float64) Outcome {
		return Outcome{Status: status, RetryAfter: time.Duration(seconds * float64(time.Second)), HasRetryAfter: true}
	}
	tests := []struct {
		name   string
		p      *Policy
		s      State
		o      Outcome
		retry  bool
		reason Reason
		wait   time.Duration
	}{
		// SPEC R4.5, the worked timeline of seed 002.
		{"R4.5 attempt 1 fails at t=0: wait 3s", timeline, withDeadline(1, 0), Outcome{Err: errTransient}, true, ReasonRetryableError, 3 * time.Second},
		{"R4.5 attempt 2 at t=3 gets 503 Retry-After 120 with 7s left: stop", timeline, withDeadline(2, 3), ra(503, 120), false, ReasonRetryAfterExceedsDeadline, 0},
		{"R4.5 attempt 2 at t=3 gets 503 Retry-After 3: wait 3s to t=6", timeline, withDeadline(2, 3), ra(503, 3), true, ReasonRetryAfter, 3 * time.Second},
		{"R4.5 Retry-After 3 but no attempt left: stop", twoAttempts, withDeadline(2, 3), ra(503, 3), false, ReasonAttemptsExhausted, 0},
		// SPEC R3.1: what is worth retrying.
		{"R3.1 success", timeline, withDeadline(1, 0), Outcome{Status: 200}, false, ReasonSuccess, 0},
		{"R3.1 502 is retried", timeline, withDeadline(1, 0), Outcome{Status: 502}, true, ReasonRetryableStatus, 3 * time.Second},
		{"R3.1 404 is permanent", timeline, withDeadline(1, 0), Outcome{Status: 404}, false, ReasonNonRetryableStatus, 0},
		{"R3.1 422 is permanent", timeline, withDeadline(1, 0), Outcome{Status: 422}, false, ReasonNonRetryableStatus, 0},
		{"R3.6 error marked permanent", timeline, withDeadline(1, 0), Outcome{Err: Permanent(errTransient)}, false, ReasonNonRetryableError, 0},
		{"R3.6 status list replaced", &Policy{RetryableStatuses: []int{404}}, withDeadline(1, 0), Outcome{Status: 503}, false, ReasonNonRetryableStatus, 0},
		{"R3.6 classifier overrides", &Policy{Classifier: func(Outcome) Class { return ClassPermanent }}, withDeadline(1, 0), Outcome{Err: errTransient}, false, ReasonNonRetryableError, 0},
		{"R3.4 unknown outcome is never retried", timeline, withDeadline(1, 0), Outcome{Err: UnknownOutcome(errTransient)}, false, ReasonUnknownOutcome, 0},
		// SPEC R2: limits.
		{"R2.1 attempts exhausted", timeline, withDeadline(3, 1), Outcome{Err: errTransient}, false, ReasonAttemptsExhausted, 0},
		{"R2.7 default limit is 3 attempts", &Policy{}, withDeadline(3, 1), Outcome{Err: errTransient}, false, ReasonAttemptsExhausted, 0},
		{"R2.7 Unlimited removes the limit", unlimited, State{Attempt: 1_000_000, Start: t0, Now: at(1)}, Outcome{Err: errTransient}, true, ReasonRetryableError, time.Second},
		{"R2.2 deadline passed", timeline, withDeadline(1, 10), Outcome{Err: errTransient}, false, ReasonDeadlineExceeded, 0},
		{"R2.3 wait would reach the deadline", timeline, withDeadline(1, 7), Outcome{Err: errTransient}, false, ReasonWaitExceedsDeadline, 0},
		{"R2.3 wait leaves less than MinAttemptTime", roomy, withDeadline(1, 7.5), Outcome{Err: errTransient}, false, ReasonWaitExceedsDeadline, 0},
		{"R2.3 wait leaves exactly MinAttemptTime", roomy, withDeadline(1, 7), Outcome{Err: errTransient}, true, ReasonRetryableError, 2 * time.Second},
		{"R2.8 caller canceled", timeline, State{Attempt: 1, Start: t0, Now: t0, Deadline: at(10), Interrupted: context.Canceled}, Outcome{Err: context.Canceled}, false, ReasonCanceled, 0},
		{"R2.8 caller deadline", timeline, State{Attempt: 1, Start: t0, Now: t0, Deadline: at(10), Interrupted: context.DeadlineExceeded}, Outcome{Err: context.DeadlineExceeded}, false, ReasonDeadlineExceeded, 0},
		{"R2.8 success wins over a late cancel", timeline, State{Attempt: 1, Start: t0, Now: t0, Interrupted: context.Canceled}, Outcome{}, false, ReasonSuccess, 0},
		// SPEC R4: server-requested waits.
		{"R4.4 Retry-After above MaxWait", roomy, withDeadline(1, 0), ra(429, 6), false, ReasonRetryAfterExceedsMaxWait, 0},
		{"R4.4 Retry-After beyond deadline and MaxWait: deadline wins", roomy, withDeadline(1, 3), ra(429, 60), false, ReasonRetryAfterExceedsDeadline, 0},
		{"R4.4 never earlier than asked: backoff longer keeps backoff", roomy, withDeadline(1, 0), ra(429, 1), true, ReasonRetryAfter, 2 * time.Second},
		{"R4.4 Retry-After 0 is honoured as the backoff", roomy, withDeadline(1, 0), ra(503, 0), true, ReasonRetryAfter, 2 * time.Second},
		{"R4.3 negative Retry-After falls back to backoff", timeline, withDeadline(1, 0), ra(503, -5), true, ReasonRetryableStatus, 3 * time.Second},
		{"R4.4 error carrying a wait", timeline, withDeadline(1, 0), Outcome{Err: After(errTransient, 4*time.Second)}, true, ReasonRetryAfter, 4 * time.Second},
		{"R4.4 error carrying too long a wait", timeline, withDeadline(1, 0), Outcome{Err: After(errTransient, time.Minute)}, false, ReasonRetryAfterExceedsDeadline, 0},
		// SPEC R7.3: nested loops.
		{"R7.3 nested single attempt stops", &Policy{Nested: NestedSingleAttempt}, State{Attempt: 1, Start: t0, Now: t0, Nested: true}, Outcome{Err: errTransient}, false, ReasonAttemptsExhausted, 0},
		{"R7.3 nested retry retries", &Policy{Backoff: constantBackoff(t, time.Second)}, State{Attempt: 1, Start: t0, Now: t0, Nested: true}, Outcome{Err: errTransient}, true, ReasonRetryableError, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.p, tt.s, tt.o)
			if d.Retry != tt.retry || d.Reason != tt.reason || d.Wait != tt.wait {
				t.Errorf("Decide = retry %v, %s, wait %v; want retry %v, %s, wait %v", d.Retry, d.Reason, d.Wait, tt.retry, tt.reason, tt.wait)
			}
		})
	}
}

// The decision carries every field of the record (SPEC R6.1), written with DESIGN's names.
func TestDecisionRecord(t *testing.T) {
	p := &Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Backoff: constantBackoff(t, 3*time.Second),
		RetryAfterSpread: NoRetryAfterSpread}
	o := Outcome{Status: 503, RetryAfter: 3 * time.Second, HasRetryAfter: true, Method: "GET", URL: "https://example.test/x"}
	d := Decide(p, State{Attempt: 2, Start: t0, Now: at(3), Deadline: at(10)}, o)
	got, err := d.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"attempt":2,"method":"GET","url":"https://example.test/x","status":503,"elapsed_ms":3000,"remaining_ms":7000,"retry_after_ms":3000,"wait_ms":3000,"decision":"retry","reason":"retry_after","outcome":"failure"}`
	if string(got) != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}

	o.RetryAfter = 120 * time.Second
	got, _ = Decide(p, State{Attempt: 2, Start: t0, Now: at(3), Deadline: at(10)}, o).MarshalJSON()
	want = `{"attempt":2,"method":"GET","url":"https://example.test/x","status":503,"elapsed_ms":3000,"remaining_ms":7000,"retry_after_ms":120000,"decision":"stop","reason":"retry_after_exceeds_deadline","outcome":"failure"}`
	if string(got) != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}

	got, _ = Decide(&Policy{Timeout: NoLimit}, State{Attempt: 1, Start: t0, Now: t0.Add(1234567891)},
		Outcome{Err: UnknownOutcome(errTransient), Method: "POST", URL: "https://x.test/?a=1&b=<2>"}).MarshalJSON()
	want = `{"attempt":1,"method":"POST","url":"https://x.test/?a=1&b=<2>","error":"connection refused","elapsed_ms":1234.568,"decision":"stop","reason":"unknown_outcome","outcome":"unknown"}`
	if string(got) != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}

	// A gRPC call: method is the full method, grpc_code the code's name, no status (DESIGN).
	got, _ = Decide(&Policy{Timeout: NoLimit}, State{Attempt: 1, Start: t0, Now: at(1)},
		Outcome{Err: errTransient, Class: ClassPermanent, Method: "/pkg.Service/Method", GRPCCode: "INVALID_ARGUMENT",
			Passthrough: true, InnerRetries: true}).MarshalJSON()
	want = `{"attempt":1,"method":"/pkg.Service/Method","grpc_code":"INVALID_ARGUMENT","error":"connection refused","elapsed_ms":1000,"decision":"stop","reason":"non_retryable_error","outcome":"failure","passthrough":true,"inner_retries":true}`
	if string(got) != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}
}

// Decide is pure: the same inputs and the same seed give the same decision.
func TestDecideIsReproducibleWithSeed(t *testing.T) {
	draw := func() []time.Duration {
		p := &Policy{MaxAttempts: Unlimited, Timeout: NoLimit, Random: backoff.NewSource(7)}
		var waits []time.Duration
		s := State{Start: t0, Now: t0}
		for i := 1; i <= 10; i++ {
			s.Attempt = i
			d := Decide(p, s, Outcome{Err: errTransient})
			waits = append(waits, d.Wait)
			s.PreviousWait = d.Wait
		}
		return waits
	}
	a, b := draw(), draw()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draws differ: %v vs %v", a, b)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		p    Policy
		want string
	}{
		{Policy{MaxAttempts: -2}, "retry: invalid policy: MaxAttempts -2 is invalid"},
		{Policy{Timeout: -2}, "retry: invalid policy: Timeout -2ns is invalid"},
		{Policy{MaxWait: -time.Second}, "retry: invalid policy: MaxWait -1s is invalid"},
		{Policy{AttemptTimeout: -time.Second}, "retry: invalid policy: AttemptTimeout -1s is negative"},
		{Policy{MinAttemptTime: -time.Second}, "retry: invalid policy: MinAttemptTime -1s is negative"},
		{Policy{RetryableStatuses: []int{503, 42}}, "retry: invalid policy: RetryableStatuses holds 42"},
		{Policy{Nested: 7}, "retry: invalid policy: Nested 7 is invalid"},
	}
	for _, tt := range tests {
		err := tt.p.Validate()
		if err == nil || !errors.Is(err, ErrInvalidPolicy) || len(err.Error()) < len(tt.want) || err.Error()[:len(tt.want)] != tt.want {
			t.Errorf("Validate(%+v) = %v, want %q...", tt.p, err, tt.want)
		}
	}
	if err := (&Policy{MaxAttempts: Unlimited, Timeout: NoLimit, MaxWait: NoLimit}).Validate(); err != nil {
		t.Errorf("explicit removal of limits: %v", err)
	}
}

// Decide's check 8 on its own (issue 17 item 2): a breaker that admits the next attempt only
// after the wait stops the loop at once unless waiting for it fits MaxWait and the deadline.
func TestDecideBreakerRetryIn(t *testing.T) {
	p := &Policy{MaxAttempts: 5, Timeout: 10 * time.Second, MaxWait: 5 * time.Second, MinAttemptTime: time.Second,
		Backoff: constantBackoff(t, 2*time.Second)}
	for _, tc := range []struct {
		in     time.Duration
		retry  bool
		reason Reason
	}{
		{0, true, ReasonRetryableError},                     // admits now
		{-1, true, ReasonRetryableError},                    // cannot say: wait and ask again
		{2 * time.Second, true, ReasonRetryableError},       // admits within the wait
		{7 * time.Second, true, ReasonRetryableError},       // 5 s beyond the wait: MaxWait; 3 s left then
		{7001 * time.Millisecond, false, ReasonCircuitOpen}, // beyond MaxWait
		{9 * time.Second, false, ReasonCircuitOpen},         // beyond MaxWait and the deadline
	} {
		d := Decide(p, State{Attempt: 1, Start: t0, Now: t0, Deadline: at(10), BreakerRetryIn: tc.in}, Outcome{Err: errTransient})
		wantIn, wantWait := time.Duration(0), 2*time.Second
		if !tc.retry {
			wantIn, wantWait = tc.in, 0
		}
		if d.Retry != tc.retry || d.Reason != tc.reason || d.Wait != wantWait || d.BreakerRetryIn != wantIn {
			t.Errorf("BreakerRetryIn %v: retry %v, %s, wait %v, BreakerRetryIn %v; want %v, %s, wait %v, %v",
				tc.in, d.Retry, d.Reason, d.Wait, d.BreakerRetryIn, tc.retry, tc.reason, wantWait, wantIn)
		}
	}
	// The deadline alone: no MaxWait, 8.5 s would leave 1.5 s, 9.5 s only 0.5 s.
	p.MaxWait = NoLimit
	for in, want := range map[time.Duration]bool{8500 * time.Millisecond: true, 9500 * time.Millisecond: false} {
		if d := Decide(p, State{Attempt: 1, Start: t0, Now: t0, Deadline: at(10), BreakerRetryIn: in}, Outcome{Err: errTransient}); d.Retry != want {
			t.Errorf("no MaxWait, BreakerRetryIn %v: retry %v (%s), want %v", in, d.Retry, d.Reason, want)
		}
	}
	// The zero Policy (no MinAttemptTime, 30 s MaxWait): the trial must keep a tenth of the
	// 10 s left, 1 s; a trial 1 ms before the deadline is no trial (SPEC R5.1, R2.3).
	zero := &Policy{Backoff: constantBackoff(t, 2*time.Second)}
	for in, want := range map[time.Duration]bool{9 * time.Second: true, 9*time.Second + 1: false, 9999 * time.Millisecond: false} {
		d := Decide(zero, State{Attempt: 1, Start: t0, Now: t0, Deadline: at(10), BreakerRetryIn: in}, Outcome{Err: errTransient})
		if d.Retry != want || (!want && (d.Reason != ReasonCircuitOpen || d.BreakerRetryIn != in)) {
			t.Errorf("zero Policy, BreakerRetryIn %v: retry %v (%s, BreakerRetryIn %v), want %v", in, d.Retry, d.Reason, d.BreakerRetryIn, want)
		}
	}
}
