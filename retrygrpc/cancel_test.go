package retrygrpc_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// A caller that cancels a server stream during the wait before a retry, or while an attempt
// waits for its header, gets the loop's canceled stop at once, on every later call too;
// the stream's attempts end with it (goleak, in TestMain, checks that no goroutine is left).
func TestServerStreamCallerCancels(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer answer
	}{
		{"during the wait", answer{code: codes.Unavailable}},
		{"before the header", answer{delay: time.Hour}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(tc.answer)
				cc := dialBufconn(t, s, interceptor(t, constant(t, 5, time.Second), nil)...)
				ctx, cancel := context.WithCancel(t.Context())
				stream, err := cc.NewStream(ctx, &listDesc, methodList)
				if err != nil {
					t.Fatal(err)
				}
				stream.SendMsg(wrapperspb.String("x"))
				stream.CloseSend()
				time.AfterFunc(1500*time.Millisecond, cancel)
				start := time.Now()
				err = stream.RecvMsg(new(wrapperspb.StringValue))
				if !errors.Is(err, context.Canceled) || status.Code(err) != codes.Canceled || time.Since(start) != 1500*time.Millisecond {
					t.Errorf("recv = %v after %v, want canceled at the cancel (1.5s)", err, time.Since(start))
				}
				if again := stream.RecvMsg(new(wrapperspb.StringValue)); again != err {
					t.Errorf("second recv = %v, want the same error %v", again, err)
				}
				synctest.Wait()
			})
		})
	}
}

// hiddenDeadline is a context whose deadline the loop cannot foresee (Deadline reports
// none), as when a parent's timer cancels it with context.DeadlineExceeded: its deadline
// passes during a wait instead of being foreseen before it.
type hiddenDeadline struct{ context.Context }

// errShutdown is a caller's cause for ending its context.
var errShutdown = errors.New("shutting down")

func (hiddenDeadline) Deadline() (time.Time, bool) { return time.Time{}, false }

// A unary call whose caller's context ends during the wait between attempts reports
// CANCELLED (or DEADLINE_EXCEEDED for the caller's deadline), as grpc-go does, not the last
// attempt's UNAVAILABLE, whatever cause the caller gave; errors.As still reaches the
// *retry.Error and the last status, errors.Is the cause.
func TestUnaryCallerEndsDuringWait(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ctx    func(context.Context) (context.Context, context.CancelFunc)
		code   codes.Code
		reason retry.Reason
		ctxErr error
		cause  error // the caller's own cause, when it gave one
	}{
		{"canceled", func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(1500*time.Millisecond, cancel)
			return ctx, cancel
		}, codes.Canceled, retry.ReasonCanceled, context.Canceled, nil},
		{"caller's deadline", func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
			return hiddenDeadline{ctx}, cancel
		}, codes.DeadlineExceeded, retry.ReasonDeadlineExceeded, context.DeadlineExceeded, nil},
		{"canceled with a cause", func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancelCause(ctx)
			time.AfterFunc(1500*time.Millisecond, func() { cancel(errShutdown) })
			return ctx, func() { cancel(nil) }
		}, codes.Canceled, retry.ReasonCanceled, context.Canceled, errShutdown},
		{"caller's deadline with a cause", func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithTimeoutCause(ctx, 1500*time.Millisecond, errShutdown)
			return hiddenDeadline{ctx}, cancel
		}, codes.DeadlineExceeded, retry.ReasonDeadlineExceeded, context.DeadlineExceeded, errShutdown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(answer{code: codes.Unavailable})
				cc := dialBufconn(t, s, interceptor(t, constant(t, 5, time.Second), nil)...)
				ctx, cancel := tc.ctx(t.Context())
				defer cancel()
				start := time.Now()
				_, err := get(ctx, cc, methodGet)
				if elapsed := time.Since(start); elapsed != 1500*time.Millisecond || len(s.seen()) != 2 {
					t.Errorf("returned after %v and %d attempts, want 1.5s and 2", elapsed, len(s.seen()))
				}
				if got := status.Code(err); got != tc.code {
					t.Errorf("status.Code = %v, want %v (error %v)", got, tc.code, err)
				}
				if !errors.Is(err, tc.ctxErr) {
					t.Errorf("errors.Is(%v, %v) = false, want true", err, tc.ctxErr)
				}
				if tc.cause != nil && !errors.Is(err, tc.cause) {
					t.Errorf("errors.Is(%v, %v) = false, want true", err, tc.cause)
				}
				var e *retry.Error
				if !errors.As(err, &e) || e.Reason != tc.reason || e.Attempts != 2 {
					t.Fatalf("errors.As: %#v, want a *retry.Error with reason %s after 2 attempts", e, tc.reason)
				}
				if last := status.Code(e.Err); last != codes.Unavailable || status.Code(errors.Unwrap(e)) != codes.Unavailable {
					t.Errorf("last attempt's status %v, want UNAVAILABLE", last)
				}
				synctest.Wait()
			})
		})
	}
}

// A committed server stream whose caller ends its context without reading on, or while a
// RecvMsg waits, ends its loop then: the last record says canceled (the caller's doing, not
// the service's: the breaker and budget ignore it), and no goroutine is left (goleak).
func TestCommittedStreamCallerCancels(t *testing.T) {
	for _, reading := range []bool{false, true} {
		t.Run(map[bool]string{false: "not reading", true: "while reading"}[reading], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(answer{code: codes.OK, after: time.Hour})
				var rec records
				cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), &rec)...)
				ctx, cancel := context.WithCancel(t.Context())
				stream, err := cc.NewStream(ctx, &listDesc, methodList)
				if err != nil {
					t.Fatal(err)
				}
				stream.SendMsg(wrapperspb.String("x"))
				stream.CloseSend()
				if err := stream.RecvMsg(new(wrapperspb.StringValue)); err != nil {
					t.Fatal(err)
				}
				time.AfterFunc(time.Second, cancel)
				if reading {
					if err := stream.RecvMsg(new(wrapperspb.StringValue)); status.Code(err) != codes.Canceled {
						t.Errorf("recv = %v, want CANCELLED", err)
					}
				} else {
					time.Sleep(2 * time.Second)
				}
				synctest.Wait()
				want := `{"attempt":1,"method":"/retrygrpc.test.Echo/List","error":"rpc error: code = Canceled desc = context canceled","elapsed_ms":1000,"remaining_ms":29000,"decision":"stop","reason":"canceled","outcome":"failure","grpc_code":"CANCELLED"}`
				if got := rec.last(t); len(rec.all()) != 1 || got != want {
					t.Errorf("%d records, the last\n got %s\nwant %s", len(rec.all()), got, want)
				}
			})
		})
	}
}
