package retrygrpc_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// frontGet is a front server's method that calls Get on a back end and returns what the
// call returned, as a server passing its dependency's failure on does.
const frontGet = "/retrygrpc.test.Front/Get"

// serveFront serves, in memory, a front whose Get calls methodGet on back with a 100 ms
// deadline and returns the call's error as it is; it returns a plain connection to the
// front (no interceptor).
func serveFront(t *testing.T, back *grpc.ClientConn) *grpc.ClientConn {
	t.Helper()
	handler := func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		in := new(wrapperspb.StringValue)
		if err := dec(in); err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		out := new(wrapperspb.StringValue)
		if err := back.Invoke(ctx, methodGet, in, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	lis := bufconn.Listen(1 << 16)
	gs := grpc.NewServer()
	gs.RegisterService(&grpc.ServiceDesc{ServiceName: "retrygrpc.test.Front", HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Get", Handler: handler}}}, nil)
	go gs.Serve(lis)
	cc, err := grpc.NewClient("passthrough:///front", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cc.Close()
		gs.Stop()
	})
	return cc
}

// Issue 23 item 3: a stop's gRPC status is the last attempt's, code, message and details
// unchanged, so a server that returns it to its own caller sends the back end's status on,
// not the retry summary (which stays in Error()).
func TestStopStatusPassesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable, message: "overloaded", retryInfo: duration(5 * time.Second)})
		back := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), nil)...)
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		_, got := get(ctx, back, methodGet)

		const summary = "retry: retry_after_exceeds_deadline after 1 attempt in 0s: rpc error: code = Unavailable desc = overloaded"
		if got == nil || got.Error() != summary {
			t.Errorf("Error() = %v, want %s", got, summary)
		}
		var e *retry.Error
		if !errors.As(got, &e) || e.Reason != retry.ReasonRetryAfterExceedsDeadline || !errors.Is(got, retry.ErrRetryAfterExceedsDeadline) ||
			!errors.Is(got, context.DeadlineExceeded) {
			t.Errorf("errors.As/Is on %v: want a *retry.Error, retry_after_exceeds_deadline, context.DeadlineExceeded", got)
		}
		checkPassedOn := func(where string, st *status.Status) {
			t.Helper()
			if st.Code() != codes.Unavailable || st.Message() != "overloaded" || len(st.Details()) != 1 {
				t.Errorf("%s: status %v %q with %d details, want UNAVAILABLE \"overloaded\" with its RetryInfo", where, st.Code(), st.Message(), len(st.Details()))
				return
			}
			if info, ok := st.Details()[0].(*errdetails.RetryInfo); !ok || info.GetRetryDelay().AsDuration() != 5*time.Second {
				t.Errorf("%s: detail %v, want RetryInfo of 5s", where, st.Details()[0])
			}
		}
		st, ok := status.FromError(got)
		if !ok {
			t.Fatalf("status.FromError(%v) is not a status", got)
		}
		checkPassedOn("status.FromError", st)

		// A front server returns the error to its own caller.
		front := serveFront(t, back)
		err := front.Invoke(t.Context(), frontGet, wrapperspb.String("x"), new(wrapperspb.StringValue))
		checkPassedOn("the front's caller", status.Convert(err))
		if strings.Contains(err.Error(), "retry:") {
			t.Errorf("the front's caller read %q, want no retry summary", err)
		}
	})
}

// The stops that have no status of the last attempt's to pass on, or whose caller ended
// the loop, have a status of their own: UNAVAILABLE for an open breaker before any attempt
// (TestOpenBreakerStopsRetries), CANCELLED and DEADLINE_EXCEEDED for the caller's context
// (TestUnaryCallerEndsDuringWait), with the context's message as grpc-go gives it.
func TestStopStatusOfTheCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable})
		cc := dialBufconn(t, s, interceptor(t, constant(t, 5, time.Second), nil)...)
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(1500*time.Millisecond, cancel)
		_, err := get(ctx, cc, methodGet)
		if st := status.Convert(err); st.Code() != codes.Canceled || st.Message() != "context canceled" || len(st.Details()) != 0 {
			t.Errorf("status %v %q, want CANCELLED \"context canceled\"", st.Code(), st.Message())
		}
		if !strings.HasPrefix(err.Error(), "retry: canceled after 2 attempts in 1.5s: rpc error: code = Unavailable") {
			t.Errorf("Error() = %q, want the retry summary", err)
		}
	})
}
