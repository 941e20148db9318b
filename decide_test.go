package retry

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
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

// decideCase is one input of Decide and the decision wanted: its reason, and the wait when
// the reason is one to retry (Reason.IsRetry).
type decideCase struct {
	name   string
	p      *Policy
	s      State
	o      Outcome
	reason Reason
	wait   time.Duration
}

// TestDecideTable states the seeds' rules directly on the pure decision function, one group
// of rows per rule, each group named after the SPEC requirement it checks.
func TestDecideTable(t *testing.T) {
	// The seed's timeline waits exactly the Retry-After: the spread is off (see
	// TestRetryAfterSpread for it).
	timeline := &Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Backoff: constantBackoff(t, 3*time.Second),
		RetryAfterSpread: None}
	twoAttempts := &Policy{MaxAttempts: 2, Timeout: 10 * time.Second, Backoff: constantBackoff(t, 3*time.Second),
		RetryAfterSpread: None}
	roomy := &Policy{MaxAttempts: 5, Timeout: 10 * time.Second, MaxWait: 5 * time.Second, MinAttemptTime: time.Second,
		Backoff: constantBackoff(t, 2*time.Second)}
	unlimited := &Policy{MaxAttempts: NoLimit, Timeout: NoLimit, Backoff: constantBackoff(t, time.Second)}
	slow := &Policy{Backoff: constantBackoff(t, 8*time.Second)}
	at10 := func(attempt int, now float64) State {
		return State{Attempt: attempt, Start: t0, Now: at(now), Deadline: at(10)}
	}
	interrupted := func(err error) State {
		return State{Attempt: 1, Start: t0, Now: t0, Deadline: at(10), Interrupted: err}
	}
	ra := func(status int, seconds float64) Outcome {
		return Outcome{Status: status, RetryAfter: time.Duration(seconds * float64(time.Second)), HasRetryAfter: true}
	}
	failed := Outcome{Err: errTransient}
	groups := []struct {
		rule  string
		cases []decideCase
	}{
		{"R4.5 the worked timeline of seed 002", []decideCase{
			{name: "attempt 1 fails at t=0: wait 3s",
				p: timeline, s: at10(1, 0), o: failed, reason: ReasonRetryableError, wait: 3 * time.Second},
			{name: "attempt 2 at t=3 gets Retry-After 120 with 7s left: stop",
				p: timeline, s: at10(2, 3), o: ra(503, 120), reason: ReasonRetryAfterExceedsDeadline},
			{name: "attempt 2 at t=3 gets Retry-After 3: wait 3s to t=6",
				p: timeline, s: at10(2, 3), o: ra(503, 3), reason: ReasonRetryAfter, wait: 3 * time.Second},
			{name: "Retry-After 3 but no attempt left: stop",
				p: twoAttempts, s: at10(2, 3), o: ra(503, 3), reason: ReasonAttemptsExhausted},
		}},
		{"R3.1 R3.4 R3.6 what is worth retrying", []decideCase{
			{name: "success", p: timeline, s: at10(1, 0), o: Outcome{Status: 200}, reason: ReasonSuccess},
			{name: "502 is retried",
				p: timeline, s: at10(1, 0), o: Outcome{Status: 502}, reason: ReasonRetryableStatus, wait: 3 * time.Second},
			{name: "404 is permanent",
				p: timeline, s: at10(1, 0), o: Outcome{Status: 404}, reason: ReasonNonRetryableStatus},
			{name: "422 is permanent",
				p: timeline, s: at10(1, 0), o: Outcome{Status: 422}, reason: ReasonNonRetryableStatus},
			{name: "an error marked permanent",
				p: timeline, s: at10(1, 0), o: Outcome{Err: Permanent(errTransient)}, reason: ReasonNonRetryableError},
			{name: "the status list replaced",
				p: &Policy{RetryableStatuses: []int{404}}, s: at10(1, 0), o: Outcome{Status: 503}, reason: ReasonNonRetryableStatus},
			{name: "a classifier overrides",
				p: &Policy{Classifier: func(Outcome) Class { return ClassPermanent }}, s: at10(1, 0), o: failed, reason: ReasonNonRetryableError},
			{name: "an unknown outcome is never retried",
				p: timeline, s: at10(1, 0), o: Outcome{Err: UnknownOutcome(errTransient)}, reason: ReasonUnknownOutcome},
		}},
		{"R2.1 R2.2 R2.7 attempts and deadline", []decideCase{
			{name: "attempts exhausted",
				p: timeline, s: at10(3, 1), o: failed, reason: ReasonAttemptsExhausted},
			{name: "the default limit is 3 attempts",
				p: &Policy{}, s: at10(3, 1), o: failed, reason: ReasonAttemptsExhausted},
			{name: "NoLimit removes the limit",
				p: unlimited, s: State{Attempt: 1_000_000, Start: t0, Now: at(1)}, o: failed, reason: ReasonRetryableError, wait: time.Second},
			{name: "the deadline passed",
				p: timeline, s: at10(1, 10), o: failed, reason: ReasonDeadlineExceeded},
			{name: "the deadline cut the last attempt: deadline, not attempts",
				p: timeline, s: at10(3, 10), o: failed, reason: ReasonDeadlineExceeded},
		}},
		{"R2.3 never sleep into the deadline", []decideCase{
			{name: "the wait would reach the deadline",
				p: timeline, s: at10(1, 7), o: failed, reason: ReasonWaitExceedsDeadline},
			{name: "the wait leaves less than MinAttemptTime",
				p: roomy, s: at10(1, 7.5), o: failed, reason: ReasonWaitExceedsDeadline},
			{name: "the wait leaves exactly MinAttemptTime",
				p: roomy, s: at10(1, 7), o: failed, reason: ReasonRetryableError, wait: 2 * time.Second},
			{name: "Retry-After 0 does not hasten a backoff that does not fit",
				p: timeline, s: at10(1, 7.5), o: ra(503, 0), reason: ReasonWaitExceedsDeadline},
			{name: "Retry-After 1 under an 8 s backoff with 5 s left",
				p: slow, s: State{Attempt: 1, Start: t0, Now: t0, Deadline: at(5)}, o: ra(503, 1), reason: ReasonWaitExceedsDeadline},
		}},
		{"R2.8 the caller's context", []decideCase{
			{name: "caller canceled",
				p: timeline, s: interrupted(context.Canceled), o: Outcome{Err: context.Canceled}, reason: ReasonCanceled},
			{name: "caller deadline",
				p: timeline, s: interrupted(context.DeadlineExceeded), o: Outcome{Err: context.DeadlineExceeded}, reason: ReasonDeadlineExceeded},
			{name: "a success wins over a late cancel",
				p: timeline, s: State{Attempt: 1, Start: t0, Now: t0, Interrupted: context.Canceled}, o: Outcome{}, reason: ReasonSuccess},
		}},
		{"R4.3 R4.4 server-requested waits", []decideCase{
			{name: "Retry-After above MaxWait",
				p: roomy, s: at10(1, 0), o: ra(429, 6), reason: ReasonRetryAfterExceedsMaxWait},
			{name: "beyond the deadline and MaxWait: the deadline wins",
				p: roomy, s: at10(1, 3), o: ra(429, 60), reason: ReasonRetryAfterExceedsDeadline},
			{name: "never earlier than asked: a longer backoff is kept",
				p: roomy, s: at10(1, 0), o: ra(429, 1), reason: ReasonRetryAfter, wait: 2 * time.Second},
			{name: "Retry-After 0 waits the backoff",
				p: roomy, s: at10(1, 0), o: ra(503, 0), reason: ReasonRetryAfter, wait: 2 * time.Second},
			{name: "a negative Retry-After falls back to the backoff",
				p: timeline, s: at10(1, 0), o: ra(503, -5), reason: ReasonRetryableStatus, wait: 3 * time.Second},
			{name: "an error carrying a wait",
				p: timeline, s: at10(1, 0), o: Outcome{Err: After(errTransient, 4*time.Second)}, reason: ReasonRetryAfter, wait: 4 * time.Second},
			{name: "an error carrying too long a wait",
				p: timeline, s: at10(1, 0), o: Outcome{Err: After(errTransient, time.Minute)}, reason: ReasonRetryAfterExceedsDeadline},
		}},
		{"R7.3 nested loops", []decideCase{
			{name: "nested single attempt stops",
				p: &Policy{Nested: NestedSingleAttempt}, s: State{Attempt: 1, Start: t0, Now: t0, Nested: true}, o: failed, reason: ReasonAttemptsExhausted},
			{name: "nested retry retries",
				p: &Policy{Backoff: constantBackoff(t, time.Second)}, s: State{Attempt: 1, Start: t0, Now: t0, Nested: true}, o: failed, reason: ReasonRetryableError, wait: time.Second},
		}},
	}
	for _, g := range groups {
		t.Run(g.rule, func(t *testing.T) {
			for _, c := range g.cases {
				t.Run(c.name, func(t *testing.T) {
					d := Decide(c.p, c.s, c.o)
					if d.Retry != c.reason.IsRetry() || d.Reason != c.reason || d.Wait != c.wait {
						t.Errorf("Decide = retry %v, %s, wait %v; want %s, wait %v", d.Retry, d.Reason, d.Wait, c.reason, c.wait)
					}
				})
			}
		})
	}
}

// The decision carries every field of the record (SPEC R6.1), written with DESIGN's names:
// the operation's labels right after attempt, an outcome's attributes after the record's own
// fields, then the breaker's.
func TestDecisionRecord(t *testing.T) {
	p := &Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Backoff: constantBackoff(t, 3*time.Second),
		RetryAfterSpread: None}
	labels := []slog.Attr{slog.String("method", "GET"), slog.String("url", "https://example.test/x")}
	decideAt := func(p *Policy, s State, o Outcome, labels ...slog.Attr) string {
		t.Helper()
		var d Decision
		d.AddAttrs(labels...)
		d.labels = d.NumAttrs()
		decide(&d, p, &s, &o)
		got, err := d.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
	o := Outcome{Status: 503, RetryAfter: 3 * time.Second, HasRetryAfter: true, RetryAfterFrom: "retry-after"}
	got := decideAt(p, State{Attempt: 2, Start: t0, Now: at(3), Deadline: at(10)}, o, labels...)
	want := `{"attempt":2,"method":"GET","url":"https://example.test/x","status":503,"elapsed_ms":3000,"remaining_ms":7000,"retry_after_ms":3000,"retry_after_from":"retry-after","wait_ms":3000,"decision":"retry","reason":"retry_after","outcome":"failure"}`
	if got != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}

	o.RetryAfter = 120 * time.Second
	got = decideAt(p, State{Attempt: 2, Start: t0, Now: at(3), Deadline: at(10)}, o, labels...)
	want = `{"attempt":2,"method":"GET","url":"https://example.test/x","status":503,"elapsed_ms":3000,"remaining_ms":7000,"retry_after_ms":120000,"retry_after_from":"retry-after","decision":"stop","reason":"retry_after_exceeds_deadline","outcome":"failure"}`
	if got != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}

	got = decideAt(&Policy{Timeout: NoLimit}, State{Attempt: 1, Start: t0, Now: t0.Add(1234567891)},
		Outcome{Err: UnknownOutcome(errTransient)}, slog.String("method", "POST"), slog.String("url", "https://x.test/?a=1&b=<2>"))
	want = `{"attempt":1,"method":"POST","url":"https://x.test/?a=1&b=<2>","error":"connection refused","elapsed_ms":1234.568,"decision":"stop","reason":"unknown_outcome","outcome":"unknown"}`
	if got != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}

	// A gRPC call's attributes follow the record's own fields; one that repeats an own
	// field's key, or a key already given, is left out.
	got = decideAt(&Policy{Timeout: NoLimit}, State{Attempt: 1, Start: t0, Now: at(1)},
		Outcome{Err: errTransient, Class: ClassPermanent, Attrs: []slog.Attr{slog.String("grpc_code", "INVALID_ARGUMENT"),
			slog.Bool("passthrough", true), slog.String("reason", "forged"), slog.String("grpc_code", "OK"),
			slog.Bool("inner_retries", true)}},
		slog.String("method", "/pkg.Service/Method"))
	want = `{"attempt":1,"method":"/pkg.Service/Method","error":"connection refused","elapsed_ms":1000,"decision":"stop","reason":"non_retryable_error","outcome":"failure","grpc_code":"INVALID_ARGUMENT","passthrough":true,"inner_retries":true}`
	if got != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}
}

// Decide is pure: the same inputs and the same seed give the same decision.
func TestDecideIsReproducibleWithSeed(t *testing.T) {
	draw := func() []time.Duration {
		p := &Policy{MaxAttempts: NoLimit, Timeout: NoLimit, Random: backoff.NewSource(7)}
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
	if err := (&Policy{MaxAttempts: NoLimit, Timeout: NoLimit, MaxWait: NoLimit}).Validate(); err != nil {
		t.Errorf("explicit removal of limits: %v", err)
	}
}

// Decide's check 8 on its own (issue 17 item 2; issue 21 item 2): a breaker that admits the
// next attempt only after the wait stops the loop at once unless waiting for it fits
// BreakerWait and the deadline; with the zero BreakerWait it always stops at once.
func TestDecideBreakerRetryIn(t *testing.T) {
	p := &Policy{MaxAttempts: 5, Timeout: 10 * time.Second, BreakerWait: 5 * time.Second, MinAttemptTime: time.Second,
		Backoff: constantBackoff(t, 2*time.Second)}
	for _, tc := range []struct {
		in     time.Duration
		retry  bool
		reason Reason
	}{
		{0, true, ReasonRetryableError},                     // admits now
		{-1, true, ReasonRetryableError},                    // cannot say: wait and ask again
		{2 * time.Second, true, ReasonRetryableError},       // admits within the wait
		{7 * time.Second, true, ReasonRetryableError},       // 5 s beyond the wait: BreakerWait; 3 s left then
		{7001 * time.Millisecond, false, ReasonCircuitOpen}, // beyond BreakerWait
		{9 * time.Second, false, ReasonCircuitOpen},         // beyond BreakerWait and the deadline
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
	// The deadline alone: BreakerWait NoLimit, 8.5 s would leave 1.5 s, 9.5 s only 0.5 s.
	// MaxWait (1 s here) does not bound the wait for the breaker.
	p.BreakerWait, p.MaxWait = NoLimit, time.Second
	p.Backoff = constantBackoff(t, time.Second)
	for in, want := range map[time.Duration]bool{8500 * time.Millisecond: true, 9500 * time.Millisecond: false} {
		if d := Decide(p, State{Attempt: 1, Start: t0, Now: t0, Deadline: at(10), BreakerRetryIn: in}, Outcome{Err: errTransient}); d.Retry != want {
			t.Errorf("BreakerWait NoLimit, BreakerRetryIn %v: retry %v (%s), want %v", in, d.Retry, d.Reason, want)
		}
	}
	// Without MinAttemptTime the trial must keep a tenth of the 10 s left, 1 s; a trial 1 ms
	// before the deadline is no trial (SPEC R5.1, R2.3).
	waiting := &Policy{Backoff: constantBackoff(t, 2*time.Second), BreakerWait: NoLimit}
	for in, want := range map[time.Duration]bool{9 * time.Second: true, 9*time.Second + 1: false, 9999 * time.Millisecond: false} {
		d := Decide(waiting, State{Attempt: 1, Start: t0, Now: t0, Deadline: at(10), BreakerRetryIn: in}, Outcome{Err: errTransient})
		if d.Retry != want || (!want && (d.Reason != ReasonCircuitOpen || d.BreakerRetryIn != in)) {
			t.Errorf("BreakerWait NoLimit, BreakerRetryIn %v: retry %v (%s, BreakerRetryIn %v), want %v", in, d.Retry, d.Reason, d.BreakerRetryIn, want)
		}
	}
	// The zero Policy's BreakerWait waits for no breaker beyond the backoff: a breaker that
	// admits within the wait is no reason to stop, one a nanosecond later is.
	zero := &Policy{Backoff: constantBackoff(t, 2*time.Second)}
	for in, want := range map[time.Duration]bool{-1: true, 2 * time.Second: true, 2*time.Second + 1: false, 9 * time.Second: false} {
		d := Decide(zero, State{Attempt: 1, Start: t0, Now: t0, Deadline: at(10), BreakerRetryIn: in}, Outcome{Err: errTransient})
		if d.Retry != want || (!want && (d.Reason != ReasonCircuitOpen || d.BreakerRetryIn != in)) {
			t.Errorf("zero Policy, BreakerRetryIn %v: retry %v (%s, BreakerRetryIn %v), want %v", in, d.Retry, d.Reason, d.BreakerRetryIn, want)
		}
	}
}

// recordOutcome sets every field of a Decision but its attributes, one by one (to keep the
// labels in place without copying them): a field added to Decision and forgotten there
// would carry the previous attempt's value into the next record.
func TestRecordOutcomeSetsEveryField(t *testing.T) {
	var d Decision
	v := reflect.ValueOf(&d).Elem()
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() {
			fill(v.Field(i))
		}
	}
	d.AddAttrs(slog.String("label", "kept"))
	d.labels = 1
	var fresh Decision
	fresh.AddAttrs(slog.String("label", "kept"))
	fresh.labels = 1
	s, o := State{Attempt: 2}, Outcome{Status: 503}
	recordOutcome(&d, &defaultPolicy, &s, &o)
	recordOutcome(&fresh, &defaultPolicy, &s, &o)
	if !reflect.DeepEqual(d, fresh) {
		t.Errorf("a field keeps its old value:\n%+v\nwant\n%+v", d, fresh)
	}
}

// fill sets v, a settable value, to something other than its zero value.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint8:
		v.SetUint(7)
	case reflect.String:
		v.SetString("x")
	case reflect.Interface:
		v.Set(reflect.ValueOf(errors.New("x")))
	default:
		panic("fill: a field of kind " + v.Kind().String())
	}
}
