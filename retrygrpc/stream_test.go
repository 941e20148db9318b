package retrygrpc_test

import (
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

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
// the message, then the failure as it came.
func TestServerStreamNotRetriedAfterFirstMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable, sendFirst: true}, answer{})
		var rec records
		cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), &rec)...)
		got, err := list(t, cc)
		if len(got) != 1 || got[0] != "first x" || status.Code(err) != codes.Unavailable {
			t.Errorf("list = %q, %v; want [first x] then UNAVAILABLE", got, err)
		}
		if n := len(s.seen()); n != 1 {
			t.Errorf("%d attempts, want 1", n)
		}
		if got, want := reasons(rec.all()), "success/OK"; got != want {
			t.Errorf("decisions %s, want %s (the stream was committed at its header)", got, want)
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
		if got, want := reasons(rec.all()), "retryable_error/DEADLINE_EXCEEDED success/OK"; got != want {
			t.Errorf("decisions %s, want %s", got, want)
		}
		time.Sleep(2 * time.Second) // past the policy's Timeout: the committed stream lives on
		if err := stream.RecvMsg(m); err != nil || m.Value != "second x" {
			t.Errorf("recv after the policy's deadline = %q, %v; want second x", m.Value, err)
		}
		if err := stream.RecvMsg(m); !errors.Is(err, io.EOF) {
			t.Errorf("recv at the end = %v, want io.EOF", err)
		}
	})
}
