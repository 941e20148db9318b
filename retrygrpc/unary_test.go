package retrygrpc_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/retrygrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// constant returns a policy of attempts attempts with waits of wait, no jitter, and server
// waits kept exact (no spread).
func constant(t *testing.T, attempts int, wait time.Duration) retry.Policy {
	t.Helper()
	b, err := backoff.New(backoff.Config{Kind: backoff.Constant, Base: wait, Jitter: backoff.NoJitter})
	if err != nil {
		t.Fatal(err)
	}
	return retry.Policy{MaxAttempts: attempts, Backoff: b, RetryAfterSpread: retry.None}
}

// grpcCode is the grpc_code of d's record, or "" when it has none.
func grpcCode(d retry.Decision) string {
	if v, ok := d.Attr("grpc_code"); ok {
		return v.String()
	}
	return ""
}

func reasons(ds []retry.Decision) string {
	var s []string
	for _, d := range ds {
		s = append(s, string(d.Reason)+"/"+grpcCode(d))
	}
	return strings.Join(s, " ")
}

// Case 1: UNAVAILABLE, UNAVAILABLE, OK takes 3 attempts, 100 ms apart, each numbered in the
// retry-attempt metadata; the records name the method and the code.
func TestUnavailableTwiceThenOK(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable}, answer{code: codes.Unavailable}, answer{})
		var rec records
		cc := dialBufconn(t, s, interceptor(t, constant(t, 5, 100*time.Millisecond), &rec)...)
		start := time.Now()
		got, err := get(t.Context(), cc, methodGet)
		if err != nil || got != "echo x" {
			t.Fatalf("get = %q, %v; want echo x, nil", got, err)
		}
		seen := s.seen()
		if len(seen) != 3 {
			t.Fatalf("server saw %d attempts, want 3", len(seen))
		}
		for i, a := range seen {
			if want := fmt.Sprint(i + 1); len(a.attempt) != 1 || a.attempt[0] != want {
				t.Errorf("attempt %d: retry-attempt metadata %q, want [%s]", i+1, a.attempt, want)
			}
			if at, want := a.at.Sub(start), time.Duration(i)*100*time.Millisecond; at != want {
				t.Errorf("attempt %d at %v, want %v", i+1, at, want)
			}
		}
		if got, want := reasons(rec.all()), "retryable_error/UNAVAILABLE retryable_error/UNAVAILABLE success/OK"; got != want {
			t.Errorf("decisions %s, want %s", got, want)
		}
		want := `{"attempt":3,"method":"/retrygrpc.test.Echo/Get","elapsed_ms":200,"remaining_ms":29800,"decision":"stop","reason":"success","outcome":"success","grpc_code":"OK"}`
		if got := rec.last(t); got != want {
			t.Errorf("record\n got %s\nwant %s", got, want)
		}
	})
}

// Case 1: codes that are not transient take one attempt, and the caller gets the server's
// status as it came. DEADLINE_EXCEEDED here is the server's, not our deadline's.
func TestNonTransientCodesTakeOneAttempt(t *testing.T) {
	for _, code := range []codes.Code{codes.InvalidArgument, codes.Canceled, codes.DeadlineExceeded, codes.Internal,
		codes.NotFound, codes.PermissionDenied, codes.FailedPrecondition, codes.Aborted, codes.Unknown} {
		t.Run(retrygrpc.CodeName(code), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(answer{code: code}, answer{})
				var rec records
				cc := dialBufconn(t, s, interceptor(t, constant(t, 5, 0), &rec)...)
				_, err := get(t.Context(), cc, methodGet)
				if st, _ := status.FromError(err); st.Code() != code || st.Message() != "scripted "+retrygrpc.CodeName(code) {
					t.Errorf("error %v, want the server's %s as it came", err, code)
				}
				if n := len(s.seen()); n != 1 {
					t.Errorf("%d attempts, want 1", n)
				}
				if got, want := reasons(rec.all()), "non_retryable_error/"+retrygrpc.CodeName(code); got != want {
					t.Errorf("decisions %s, want %s", got, want)
				}
			})
		})
	}
}

// Codes are configurable per client and per call.
func TestCodesPerClientAndPerCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Aborted}, answer{code: codes.Unavailable}, answer{})
		cc := dialBufconn(t, s, interceptor(t, constant(t, 5, 0), nil, retrygrpc.WithCodes(codes.Aborted))...)
		// The client retries ABORTED but no longer UNAVAILABLE...
		if _, err := get(t.Context(), cc, methodGet); status.Code(err) != codes.Unavailable || len(s.seen()) != 2 {
			t.Fatalf("client codes: error %v after %d attempts, want UNAVAILABLE after 2", err, len(s.seen()))
		}
		// ...and this call retries both.
		s2 := newServer(answer{code: codes.Aborted}, answer{code: codes.Unavailable}, answer{})
		cc2 := dialBufconn(t, s2, interceptor(t, constant(t, 5, 0), nil, retrygrpc.WithCodes(codes.Aborted))...)
		if _, err := get(t.Context(), cc2, methodGet, retrygrpc.WithCodes(codes.Aborted, codes.Unavailable)); err != nil || len(s2.seen()) != 3 {
			t.Fatalf("call codes: error %v after %d attempts, want nil after 3", err, len(s2.seen()))
		}
	})
}

// Bad options are errors naming the value, from New or from the call before any attempt.
func TestBadOptions(t *testing.T) {
	for _, tt := range []struct {
		opt  retrygrpc.Option
		want string
	}{
		{retrygrpc.WithCodes(codes.OK), "retrygrpc: WithCodes(OK): OK is never retried"},
		{retrygrpc.WithCodes(codes.Canceled), "retrygrpc: WithCodes(CANCELLED): CANCELLED is never retried"},
		{retrygrpc.WithPushbackCodes(codes.Code(17)), "retrygrpc: WithPushbackCodes(CODE(17)): not a gRPC status code"},
		{retrygrpc.WithIdempotentMethods("Get"), `retrygrpc: WithIdempotentMethods("Get"): not a full method name`},
		{retrygrpc.WithIdempotencyKey("Idempotency-Key"), `retrygrpc: WithIdempotencyKey("Idempotency-Key"): not a metadata key`},
		{retrygrpc.WithIdempotencyKey("grpc-key"), `retrygrpc: WithIdempotencyKey("grpc-key"): not a metadata key`},
		{retrygrpc.Idempotent(), "retrygrpc: Idempotent() is a call option"},
		// Issue 23 item 6: refused by New, not at the first call.
		{retrygrpc.WithPolicy(&retry.Policy{MaxAttempts: -5}), "retrygrpc: WithPolicy: retry: invalid policy: MaxAttempts -5 is invalid"},
		{retrygrpc.WithPolicy(&retry.Policy{AttemptTimeout: -time.Second}), "retrygrpc: WithPolicy: retry: invalid policy: AttemptTimeout -1s is negative"},
	} {
		if _, err := retrygrpc.New(tt.opt); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("New: %v, want %s...", err, tt.want)
		} else if strings.Contains(tt.want, "WithPolicy") && !errors.Is(err, retry.ErrInvalidPolicy) {
			t.Errorf("New: %v does not match retry.ErrInvalidPolicy", err)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		s := newServer()
		cc := dialBufconn(t, s, interceptor(t, retry.Policy{}, nil)...)
		_, err := get(t.Context(), cc, methodGet, retrygrpc.WithCodes(codes.OK))
		if err == nil || !strings.HasPrefix(err.Error(), "retrygrpc: WithCodes(OK)") || len(s.seen()) != 0 {
			t.Errorf("call: %v after %d attempts, want the option's error before any", err, len(s.seen()))
		}
		_, err = get(t.Context(), cc, methodGet, retrygrpc.WithPolicy(&retry.Policy{MaxAttempts: -5}))
		if !errors.Is(err, retry.ErrInvalidPolicy) || len(s.seen()) != 0 {
			t.Errorf("call: %v, want ErrInvalidPolicy before any attempt", err)
		}
	})
}

// Case 2: a pushback of 200 ms puts the next attempt no sooner than 200 ms later, even with a
// shorter backoff; the record shows retry_after_ms.
func TestPushbackTrailerIsAWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable, pushback: []string{"200"}}, answer{})
		var rec records
		cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 10*time.Millisecond), &rec)...)
		if _, err := get(t.Context(), cc, methodGet); err != nil {
			t.Fatal(err)
		}
		seen := s.seen()
		if len(seen) != 2 || seen[1].at.Sub(seen[0].at) != 200*time.Millisecond {
			t.Fatalf("attempts %v, want 2, 200 ms apart", seen)
		}
		d := rec.all()[0]
		if d.Reason != retry.ReasonRetryAfter || d.Wait != 200*time.Millisecond || d.RetryAfter != 200*time.Millisecond {
			t.Errorf("decision %s wait %v retry-after %v, want retry_after, 200ms, 200ms", d.Reason, d.Wait, d.RetryAfter)
		}

		// With the default spread a wait of 200 ms, below retry.ShortRetryAfter, is drawn from
		// [200 ms, 400 ms): never sooner.
		s2 := newServer(answer{code: codes.Unavailable, pushback: []string{"200"}}, answer{})
		p := constant(t, 3, 10*time.Millisecond)
		p.RetryAfterSpread = 0
		cc2 := dialBufconn(t, s2, interceptor(t, p, nil)...)
		if _, err := get(t.Context(), cc2, methodGet); err != nil {
			t.Fatal(err)
		}
		upper := 400 * time.Millisecond
		if gap := s2.seen()[1].at.Sub(s2.seen()[0].at); gap < 200*time.Millisecond || gap >= upper {
			t.Errorf("with the default spread, retried after %v, want [200ms, %v)", gap, upper)
		}
	})
}

// Case 2: a negative or malformed pushback stops retrying; the status is returned as it came.
// Issue 23 item 2: the token bucket counts it as a throttling failure (gRFC A6), whatever
// the code, and the record names the pushback and its value.
func TestBadPushbackStopsRetrying(t *testing.T) {
	for _, tt := range []struct {
		values []string
		code   codes.Code
		shown  string // grpc_retry_pushback_ms in the record
	}{
		{[]string{"-1"}, codes.Unavailable, "-1"},
		{[]string{"abc"}, codes.Unavailable, "malformed"},
		{[]string{"1.5"}, codes.Unavailable, "1.5"},
		{[]string{""}, codes.Unavailable, ""},
		{[]string{"100", "200"}, codes.Unavailable, "100,200"},
		{[]string{"007"}, codes.Unavailable, "007"},               // read as 7 ms before
		{[]string{"2147483648"}, codes.Unavailable, "2147483648"}, // read as 24.8 days before
		{[]string{"-1"}, codes.ResourceExhausted, "-1"},
		{[]string{"-1"}, codes.InvalidArgument, "-1"}, // not retried anyway, but a throttling failure
	} {
		t.Run(retrygrpc.CodeName(tt.code)+" "+strings.Join(tt.values, ","), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(answer{code: tt.code, pushback: tt.values}, answer{})
				var rec records
				budgets, err := budget.NewGroup(budget.GroupConfig{TokenBucket: &budget.TokenBucketConfig{MaxTokens: 10, TokenRatio: 0.1}})
				if err != nil {
					t.Fatal(err)
				}
				cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), &rec, retrygrpc.WithBudgets(budgets))...)
				_, err = get(t.Context(), cc, methodGet)
				if st := status.Convert(err); st.Code() != tt.code || st.Message() != "scripted "+retrygrpc.CodeName(tt.code) || len(s.seen()) != 1 {
					t.Errorf("error %v after %d attempts, want the server's %s as it came after 1", err, len(s.seen()), tt.code)
				}
				throttled := "" // issue 32: RESOURCE_EXHAUSTED is a throttle
				if tt.code == codes.ResourceExhausted {
					throttled = `"throttled":true,`
				}
				want := fmt.Sprintf(`{"attempt":1,"method":"/retrygrpc.test.Echo/Get","error":"rpc error: code = %s desc = scripted %s","elapsed_ms":0,"remaining_ms":30000,"decision":"stop","reason":"non_retryable_error","outcome":"failure",%s"grpc_code":"%s","grpc_retry_pushback_ms":%q}`,
					tt.code, retrygrpc.CodeName(tt.code), throttled, retrygrpc.CodeName(tt.code), tt.shown)
				if got := rec.last(t); len(rec.all()) != 1 || got != want {
					t.Errorf("record\n got %s\nwant %s", got, want)
				}
				if tokens := budgets.Budget(cc.Target()).(*budget.TokenBucket).Tokens(); tokens != 9 {
					t.Errorf("the token bucket holds %v tokens, want 9 of 10", tokens)
				}
			})
		})
	}
}

// Case 2: RetryInfo asking 5 s with 1 s left stops at once with retry_after_exceeds_deadline,
// and the caller still reads the server's status and details.
func TestRetryInfoBeyondDeadlineStopsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable, retryInfo: duration(5 * time.Second)}, answer{})
		var rec records
		cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), &rec)...)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		_, err := get(ctx, cc, methodGet)
		if elapsed := time.Since(start); elapsed != 0 {
			t.Errorf("returned after %v, want at once", elapsed)
		}
		if !errors.Is(err, retry.ErrRetryAfterExceedsDeadline) {
			t.Fatalf("error %v, want retry_after_exceeds_deadline", err)
		}
		st, _ := status.FromError(err)
		if st.Code() != codes.Unavailable || len(st.Details()) != 1 {
			t.Errorf("status %v with %d details, want UNAVAILABLE with its RetryInfo", st.Code(), len(st.Details()))
		}
		want := `{"attempt":1,"method":"/retrygrpc.test.Echo/Get","error":"rpc error: code = Unavailable desc = scripted UNAVAILABLE","elapsed_ms":0,"remaining_ms":1000,"retry_after_ms":5000,"retry_after_from":"retry-info","decision":"stop","reason":"retry_after_exceeds_deadline","outcome":"failure","grpc_code":"UNAVAILABLE"}`
		if got := rec.last(t); got != want {
			t.Errorf("record\n got %s\nwant %s", got, want)
		}
	})
}

// RESOURCE_EXHAUSTED is retried only when the server asks for a wait.
func TestResourceExhaustedNeedsPushback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.ResourceExhausted})
		cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), nil)...)
		if _, err := get(t.Context(), cc, methodGet); status.Code(err) != codes.ResourceExhausted || len(s.seen()) != 1 {
			t.Fatalf("without a wait: %v after %d attempts, want RESOURCE_EXHAUSTED after 1", err, len(s.seen()))
		}
		s2 := newServer(answer{code: codes.ResourceExhausted, retryInfo: duration(300 * time.Millisecond)}, answer{})
		cc2 := dialBufconn(t, s2, interceptor(t, constant(t, 3, 0), nil)...)
		if _, err := get(t.Context(), cc2, methodPost); err != nil || len(s2.seen()) != 2 {
			t.Fatalf("with RetryInfo: %v after %d attempts, want nil after 2", err, len(s2.seen()))
		}
		if gap := s2.seen()[1].at.Sub(s2.seen()[0].at); gap != 300*time.Millisecond {
			t.Errorf("retried after %v, want 300ms", gap)
		}
	})
}

// RESOURCE_EXHAUSTED counts as the server declining a write only when the server asked for a
// wait: grpc-go also gives the code on the client, after the server processed the call, when
// the reply is larger than the client accepts. Such a write is an unknown outcome, sent once,
// even when the client retries RESOURCE_EXHAUSTED whatever the answer.
func TestResourceExhaustedWithoutPushbackIsNotADeclinedWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{})
		cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), nil,
			retrygrpc.WithCodes(codes.Unavailable, codes.ResourceExhausted))...)
		_, err := get(t.Context(), cc, methodPost, grpc.MaxCallRecvMsgSize(2)) // the reply "x" takes 3 bytes
		var stop *retry.Error
		if !errors.As(err, &stop) || stop.Reason != retry.ReasonUnknownOutcome || status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("got %v, want a stop with unknown_outcome and RESOURCE_EXHAUSTED", err)
		}
		if n := len(s.seen()); n != 1 {
			t.Errorf("the server ran the write %d times, want 1", n)
		}
	})
}

// Case 3: a 100 ms deadline with a 500 ms backoff returns at once with the last status.
func TestBackoffBeyondDeadlineReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable})
		var rec records
		cc := dialBufconn(t, s, interceptor(t, constant(t, 5, 500*time.Millisecond), &rec)...)
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := get(ctx, cc, methodGet)
		if elapsed := time.Since(start); elapsed != 0 {
			t.Errorf("returned after %v, want at once", elapsed)
		}
		if !errors.Is(err, retry.ErrWaitExceedsDeadline) || status.Code(err) != codes.Unavailable || len(s.seen()) != 1 {
			t.Errorf("error %v (code %v) after %d attempts, want wait_exceeds_deadline with UNAVAILABLE after 1", err, status.Code(err), len(s.seen()))
		}
	})
}

// Each attempt's context gets min(attempt timeout, time left): a hung attempt ends at its
// timeout and is retried (DEADLINE_EXCEEDED of the attempt's own timeout); the caller's
// deadline ending an attempt is never retried.
func TestAttemptTimeoutAndCallerDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{delay: time.Hour}, answer{})
		p := constant(t, 3, 0)
		p.AttemptTimeout = 300 * time.Millisecond
		var rec records
		cc := dialBufconn(t, s, interceptor(t, p, &rec)...)
		start := time.Now()
		if _, err := get(t.Context(), cc, methodGet); err != nil {
			t.Fatal(err)
		}
		if elapsed := time.Since(start); elapsed != 300*time.Millisecond || len(s.seen()) != 2 {
			t.Errorf("took %v and %d attempts, want 300ms and 2", elapsed, len(s.seen()))
		}
		if got, want := reasons(rec.all()), "retryable_error/DEADLINE_EXCEEDED success/OK"; got != want {
			t.Errorf("decisions %s, want %s", got, want)
		}

		s2 := newServer(answer{delay: time.Hour})
		var rec2 records
		cc2 := dialBufconn(t, s2, interceptor(t, p, &rec2)...)
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		_, err := get(ctx, cc2, methodGet)
		if status.Code(err) != codes.DeadlineExceeded || !errors.Is(err, retry.ErrDeadlineExceeded) || len(s2.seen()) != 1 {
			t.Errorf("error %v after %d attempts, want DEADLINE_EXCEEDED (deadline_exceeded) after 1", err, len(s2.seen()))
		}
	})
}

// Writes: a method that is not idempotent is not sent again on a code that may mean it was
// applied (unknown_outcome), unless its descriptor, an option or an idempotency key says
// that a repeat is safe.
func TestWrites(t *testing.T) {
	for _, tt := range []struct {
		name     string
		method   string
		ctx      func(context.Context) context.Context
		call     []retrygrpc.Option
		client   []retrygrpc.Option
		attempts int
		reason   retry.Reason
		autoKey  bool // every attempt must carry the same generated key
	}{
		{name: "Post is not idempotent", method: methodPost, attempts: 1, reason: retry.ReasonUnknownOutcome},
		{name: "Put is IDEMPOTENT in its descriptor", method: methodPut, attempts: 3, reason: retry.ReasonSuccess},
		{name: "Get is NO_SIDE_EFFECTS in its descriptor", method: methodGet, attempts: 3, reason: retry.ReasonSuccess},
		{name: "Post listed idempotent", method: methodPost, client: []retrygrpc.Option{retrygrpc.WithIdempotentMethods(methodPost)}, attempts: 3, reason: retry.ReasonSuccess},
		{name: "Post declared idempotent for the call", method: methodPost, call: []retrygrpc.Option{retrygrpc.Idempotent()}, attempts: 3, reason: retry.ReasonSuccess},
		{name: "Post with an idempotency key", method: methodPost, attempts: 3, reason: retry.ReasonSuccess,
			ctx: func(ctx context.Context) context.Context {
				return metadata.AppendToOutgoingContext(ctx, retrygrpc.DefaultIdempotencyKey, "k-1")
			}},
		{name: "Post with a key given by the interceptor", method: methodPost, attempts: 3, reason: retry.ReasonSuccess,
			client: []retrygrpc.Option{retrygrpc.WithAutoIdempotencyKey()}, autoKey: true},
		{name: "Post with a key of another name", method: methodPost, attempts: 3, reason: retry.ReasonSuccess,
			client: []retrygrpc.Option{retrygrpc.WithIdempotencyKey("x-request-id")},
			ctx: func(ctx context.Context) context.Context {
				return metadata.AppendToOutgoingContext(ctx, "x-request-id", "k-1")
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(answer{code: codes.Unavailable}, answer{code: codes.Unavailable}, answer{})
				var rec records
				cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), &rec, tt.client...)...)
				ctx := t.Context()
				if tt.ctx != nil {
					ctx = tt.ctx(ctx)
				}
				var opts []grpc.CallOption
				for _, o := range tt.call {
					opts = append(opts, o)
				}
				_, err := get(ctx, cc, tt.method, opts...)
				if n := len(s.seen()); n != tt.attempts {
					t.Errorf("%d attempts, want %d", n, tt.attempts)
				}
				if tt.autoKey {
					seen := s.seen()
					for _, a := range seen {
						if len(a.key) != 1 || len(a.key[0]) != 36 || a.key[0] != seen[0].key[0] {
							t.Errorf("idempotency-key %q, want one UUID, the same on every attempt (first %q)", a.key, seen[0].key)
						}
					}
				}
				d := rec.all()
				if last := d[len(d)-1]; last.Reason != tt.reason {
					t.Errorf("stopped with %s (%v), want %s", last.Reason, err, tt.reason)
				}
				if tt.reason == retry.ReasonUnknownOutcome {
					if !errors.Is(err, retry.ErrUnknownOutcome) || status.Code(err) != codes.Unavailable {
						t.Errorf("error %v, want unknown_outcome with UNAVAILABLE", err)
					}
					// Issue 23 item 6: the stop says how to let the write be retried.
					const msg = "retry: unknown_outcome after 1 attempt in 0s: rpc error: code = Unavailable desc = scripted UNAVAILABLE" +
						" (the call may have been applied, so it was not sent again: if /retrygrpc.test.Echo/Post is safe to repeat," +
						" declare it with retrygrpc.WithIdempotentMethods or idempotency_level in its proto)"
					if err.Error() != msg {
						t.Errorf("Error()\n got %s\nwant %s", err, msg)
					}
					if st := status.Convert(err); st.Message() != "scripted UNAVAILABLE" {
						t.Errorf("status message %q, want the server's", st.Message())
					}
					want := `{"attempt":1,"method":"/retrygrpc.test.Echo/Post","error":"rpc error: code = Unavailable desc = scripted UNAVAILABLE","elapsed_ms":0,"remaining_ms":30000,"decision":"stop","reason":"unknown_outcome","outcome":"unknown","grpc_code":"UNAVAILABLE"}`
					if got := rec.last(t); got != want {
						t.Errorf("record\n got %s\nwant %s", got, want)
					}
				}
			})
		})
	}
}

// A write that never reached a server (no connection could be made) was not applied: it is
// retried like any other call.
func TestWriteNeverSentIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer()
		var rec records
		cc := dialBufconn(t, s, append(interceptor(t, constant(t, 3, 0), &rec),
			grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) {
				return nil, errors.New("connection refused")
			}))...)
		_, err := get(t.Context(), cc, methodPost)
		if !errors.Is(err, retry.ErrAttemptsExhausted) || status.Code(err) != codes.Unavailable {
			t.Errorf("error %v, want attempts_exhausted with UNAVAILABLE", err)
		}
		if got, want := reasons(rec.all()), "retryable_error/UNAVAILABLE retryable_error/UNAVAILABLE attempts_exhausted/UNAVAILABLE"; got != want {
			t.Errorf("decisions %s, want %s", got, want)
		}
	})
}

// The zero Interceptor has New's defaults: UNAVAILABLE retried, 3 attempts.
func TestZeroInterceptor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable})
		var ic retrygrpc.Interceptor
		cc := dialBufconn(t, s, grpc.WithChainUnaryInterceptor(ic.Unary), grpc.WithDisableRetry())
		if _, err := get(t.Context(), cc, methodGet); !errors.Is(err, retry.ErrAttemptsExhausted) || len(s.seen()) != 3 {
			t.Errorf("error %v after %d attempts, want attempts_exhausted after 3", err, len(s.seen()))
		}
		// Its DialOptions disable grpc-go's retries: a retrying service config changes nothing.
		s2 := newServer(answer{code: codes.Unavailable})
		cc2 := dialBufconn(t, s2, append(ic.DialOptions(), grpc.WithDefaultServiceConfig(retryingServiceConfig))...)
		if _, err := get(t.Context(), cc2, methodGet); !errors.Is(err, retry.ErrAttemptsExhausted) || len(s2.seen()) != 3 {
			t.Errorf("with DialOptions: error %v after %d attempts, want attempts_exhausted after 3", err, len(s2.seen()))
		}
	})
}

// Issue 23 item 7: an UNAVAILABLE (or RESOURCE_EXHAUSTED) that asks for a wait, by pushback
// or RetryInfo, is the server declining the call: a write is retried after the wait, as an
// HTTP 503 with Retry-After. Without the wait it stops with unknown_outcome (TestWrites).
func TestDeclinedWriteIsRetried(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer answer
		from   string
	}{
		{"UNAVAILABLE with pushback", answer{code: codes.Unavailable, pushback: []string{"200"}}, "grpc-retry-pushback-ms"},
		{"UNAVAILABLE with RetryInfo", answer{code: codes.Unavailable, retryInfo: duration(200 * time.Millisecond)}, "retry-info"},
		{"RESOURCE_EXHAUSTED with pushback", answer{code: codes.ResourceExhausted, pushback: []string{"200"}}, "grpc-retry-pushback-ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(tt.answer, answer{})
				var rec records
				cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), &rec)...)
				if got, err := get(t.Context(), cc, methodPost); err != nil || got != "echo x" {
					t.Fatalf("get = %q, %v; want echo x", got, err)
				}
				if seen := s.seen(); len(seen) != 2 || seen[1].at.Sub(seen[0].at) != 200*time.Millisecond {
					t.Errorf("attempts %+v, want 2, 200 ms apart", seen)
				}
				code := retrygrpc.CodeName(tt.answer.code)
				throttled := "" // issue 32: RESOURCE_EXHAUSTED is a throttle
				if tt.answer.code == codes.ResourceExhausted {
					throttled = `"throttled":true,`
				}
				want := fmt.Sprintf(`{"attempt":1,"method":"/retrygrpc.test.Echo/Post","error":"rpc error: code = %s desc = scripted %s","elapsed_ms":0,"remaining_ms":30000,"retry_after_ms":200,"retry_after_from":%q,"wait_ms":200,"decision":"retry","reason":"retry_after","outcome":"failure",%s"grpc_code":"%s"}`,
					tt.answer.code, code, tt.from, throttled, code)
				if b, _ := rec.all()[0].MarshalJSON(); string(b) != want {
					t.Errorf("first record\n got %s\nwant %s", b, want)
				}
			})
		})
	}
}
