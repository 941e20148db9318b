package retrygrpc_test

import (
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/retrygrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// list opens List with "x" (as generated code does: send, close, return) and reads it to the
// end: the messages received and the final error (nil for io.EOF).
func list(t *testing.T, cc *grpc.ClientConn, opts ...grpc.CallOption) ([]string, error) {
	stream, err := cc.NewStream(t.Context(), &listDesc, methodList, opts...)
	if err != nil {
		return nil, err
	}
	if err := stream.SendMsg(wrapperspb.String("x")); err != nil {
		return nil, err
	}
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	var got []string
	for {
		m := new(wrapperspb.StringValue)
		if err := stream.RecvMsg(m); err != nil {
			if errors.Is(err, io.EOF) {
				return got, nil
			}
			return got, err
		}
		got = append(got, m.Value)
	}
}

// A server stream that fails before its first message is retried.
func TestServerStreamRetriedBeforeFirstMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable}, answer{code: codes.Unavailable}, answer{})
		var rec records
		cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 50*time.Millisecond), &rec)...)
		got, err := list(t, cc)
		if err != nil || len(got) != 2 || got[0] != "first x" || got[1] != "second x" {
			t.Logf("%+v %s", s.seen(), reasons(rec.all()))
			t.Fatalf("list = %q, %v; want [first x second x], nil", got, err)
		}
		seen := s.seen()
		if len(seen) != 3 || seen[2].at.Sub(seen[0].at) != 100*time.Millisecond || seen[2].attempt[0] != "3" {
			t.Errorf("attempts %+v, want 3, 50 ms apart, numbered", seen)
		}
		if got, want := reasons(rec.all()), "retryable_error/UNAVAILABLE retryable_error/UNAVAILABLE success/OK"; got != want {
			t.Errorf("decisions %s, want %s", got, want)
		}
	})
}

// Case 4: a server stream failing after its first message is not retried: the caller gets
// the message, then the failure as it came. Issue 23 item 1: the record says so (it said
// success at the header), the metrics count a failure, and so do the breaker and budget.
func TestServerStreamNotRetriedAfterFirstMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable, sendFirst: true}, answer{})
		var rec records
		metrics := new(retry.Metrics)
		budgets, err := budget.NewGroup(budget.GroupConfig{TokenBucket: &budget.TokenBucketConfig{MaxTokens: 10, TokenRatio: 0.1}})
		if err != nil {
			t.Fatal(err)
		}
		breakers, err := breaker.NewGroup(breaker.GroupConfig{Breaker: breaker.Config{ConsecutiveFailures: 1}})
		if err != nil {
			t.Fatal(err)
		}
		p := constant(t, 3, 0)
		p.OnDecision = retry.Observers(rec.add, metrics.Observe)
		cc := dialBufconn(t, s, interceptor(t, p, nil, retrygrpc.WithBudgets(budgets), retrygrpc.WithBreakers(breakers))...)
		got, err := list(t, cc)
		if len(got) != 1 || got[0] != "first x" || status.Code(err) != codes.Unavailable ||
			status.Convert(err).Message() != "scripted UNAVAILABLE" {
			t.Errorf("list = %q, %v; want [first x] then the server's UNAVAILABLE", got, err)
		}
		if n := len(s.seen()); n != 1 {
			t.Errorf("%d attempts, want 1", n)
		}
		want := `{"attempt":1,"method":"/retrygrpc.test.Echo/List","error":"rpc error: code = Unavailable desc = scripted UNAVAILABLE","elapsed_ms":0,"remaining_ms":30000,"decision":"stop","reason":"non_retryable_error","outcome":"failure","grpc_code":"UNAVAILABLE","committed":true,"breaker":"OPEN"}`
		if d := rec.all(); len(d) != 1 || rec.last(t) != want {
			t.Errorf("%d records, the last\n got %s\nwant %s", len(d), rec.last(t), want)
		}
		if m := metrics.Snapshot(); m.Attempts != 1 || m.Stops[retry.ReasonNonRetryableError] != 1 || m.Stops[retry.ReasonSuccess] != 0 {
			t.Errorf("metrics %+v, want 1 attempt and 1 non_retryable_error stop", m)
		}
		if tokens := budgets.Budget(cc.Target()).(*budget.TokenBucket).Tokens(); tokens != 9 {
			t.Errorf("the token bucket holds %v tokens, want 9: the stream failed", tokens)
		}
	})
}

// A committed stream that ends with OK is recorded when it ends, once, as a success; one
// that ends with a code the call does not retry is a decisive answer (the breaker and budget
// count a success), marked committed.
func TestServerStreamRecordedAtItsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{}, answer{code: codes.NotFound, sendFirst: true})
		var rec records
		budgets, err := budget.NewGroup(budget.GroupConfig{TokenBucket: &budget.TokenBucketConfig{MaxTokens: 10, TokenRatio: 0.1}})
		if err != nil {
			t.Fatal(err)
		}
		cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), &rec, retrygrpc.WithBudgets(budgets))...)
		stream, err := cc.NewStream(t.Context(), &listDesc, methodList)
		if err != nil {
			t.Fatal(err)
		}
		stream.SendMsg(wrapperspb.String("x"))
		stream.CloseSend()
		m := new(wrapperspb.StringValue)
		if err := stream.RecvMsg(m); err != nil || len(rec.all()) != 0 {
			t.Fatalf("first recv %v with %d records, want a message and no record yet", err, len(rec.all()))
		}
		time.Sleep(time.Minute) // longer than the policy's Timeout: the stream lives on
		stream.RecvMsg(m)
		if err := stream.RecvMsg(m); !errors.Is(err, io.EOF) {
			t.Fatalf("recv at the end = %v, want io.EOF", err)
		}
		want := `{"attempt":1,"method":"/retrygrpc.test.Echo/List","elapsed_ms":60000,"remaining_ms":0,"decision":"stop","reason":"success","outcome":"success","grpc_code":"OK"}`
		if d := rec.all(); len(d) != 1 || rec.last(t) != want {
			t.Errorf("%d records, the last\n got %s\nwant %s", len(d), rec.last(t), want)
		}
		if _, err := list(t, cc); status.Code(err) != codes.NotFound {
			t.Fatalf("second stream: %v, want NOT_FOUND", err)
		}
		want = `{"attempt":1,"method":"/retrygrpc.test.Echo/List","error":"rpc error: code = NotFound desc = scripted NOT_FOUND","elapsed_ms":0,"remaining_ms":30000,"decision":"stop","reason":"non_retryable_error","outcome":"failure","grpc_code":"NOT_FOUND","committed":true}`
		if got := rec.last(t); got != want {
			t.Errorf("record\n got %s\nwant %s", got, want)
		}
		if tokens := budgets.Budget(cc.Target()).(*budget.TokenBucket).Tokens(); tokens != 10 {
			t.Errorf("the token bucket holds %v tokens, want 10: two decisive answers", tokens)
		}
	})
}

// Case 4: a bidirectional stream passes through: one attempt, its failure as it came, and a
// record that says passthrough.
func TestBidiStreamPassesThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable}, answer{})
		var rec records
		cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), &rec)...)
		stream, err := cc.NewStream(t.Context(), &chatDesc, methodChat)
		if err != nil {
			t.Fatal(err)
		}
		if err := stream.SendMsg(wrapperspb.String("x")); err != nil {
			t.Fatal(err)
		}
		err = stream.RecvMsg(new(wrapperspb.StringValue))
		if status.Code(err) != codes.Unavailable || len(s.seen()) != 1 {
			t.Errorf("recv: %v after %d attempts, want UNAVAILABLE after 1", err, len(s.seen()))
		}
		if len(s.seen()) == 1 && len(s.seen()[0].attempt) != 0 {
			t.Errorf("passthrough stream carried retry-attempt %q", s.seen()[0].attempt)
		}
		want := `{"attempt":1,"method":"/retrygrpc.test.Echo/Chat","elapsed_ms":0,"decision":"stop","reason":"success","outcome":"success","grpc_code":"OK","passthrough":true}`
		if got := rec.last(t); got != want {
			t.Errorf("record\n got %s\nwant %s", got, want)
		}
	})
}

// A server stream whose first attempt hangs before its header is retried at the attempt
// timeout; once committed, the stream outlives the policy's deadline.
func TestServerStreamAttemptTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{delay: time.Hour}, answer{})
		p := constant(t, 3, 0)
		p.AttemptTimeout = 200 * time.Millisecond
		p.Timeout = time.Second
		var rec records
		cc := dialBufconn(t, s, interceptor(t, p, &rec)...)
		stream, err := cc.NewStream(t.Context(), &listDesc, methodList)
		if err != nil {
			t.Fatal(err)
		}
		stream.SendMsg(wrapperspb.String("x"))
		stream.CloseSend()
		m := new(wrapperspb.StringValue)
		if err := stream.RecvMsg(m); err != nil || m.Value != "first x" {
			t.Fatalf("recv = %q, %v; want first x", m.Value, err)
		}
		time.Sleep(2 * time.Second) // past the policy's Timeout: the committed stream lives on
		if err := stream.RecvMsg(m); err != nil || m.Value != "second x" {
			t.Errorf("recv after the policy's deadline = %q, %v; want second x", m.Value, err)
		}
		if err := stream.RecvMsg(m); !errors.Is(err, io.EOF) {
			t.Errorf("recv at the end = %v, want io.EOF", err)
		}
		if got, want := reasons(rec.all()), "retryable_error/DEADLINE_EXCEEDED success/OK"; got != want {
			t.Errorf("decisions %s, want %s", got, want)
		}
	})
}
