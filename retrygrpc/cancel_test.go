package retrygrpc_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
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
				if !errors.Is(err, context.Canceled) || time.Since(start) != 1500*time.Millisecond {
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
