package retrygrpc_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
)

// The default retry budget of retrygrpc.New() (issue 21 item 1): one per connection target.
// Against a target that always answers UNAVAILABLE, 10 calls make their 3 attempts (20
// retries) and every later call stops after its first, with retry_budget_exhausted and
// UNAVAILABLE; a second target's calls keep their retries; NoBudget turns it off.
func TestDefaultBudgetPerTarget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := constant(t, 3, 10*time.Millisecond)
		p.Budget = nil // the interceptor's default, per target
		opts := interceptor(t, p, nil)
		sick := newServer(answer{code: codes.Unavailable})
		cc := dialBufconn(t, sick, opts...)
		for call := range 12 {
			before := len(sick.seen())
			_, err := get(t.Context(), cc, methodGet)
			attempts := len(sick.seen()) - before
			want := 3
			if call >= 10 {
				want = 1
				if !errors.Is(err, retry.ErrRetryBudgetExhausted) || status.Code(err) != codes.Unavailable {
					t.Errorf("call %d: %v (code %v); want retry_budget_exhausted with UNAVAILABLE", call, err, status.Code(err))
				}
			}
			if attempts != want {
				t.Fatalf("call %d: %d attempts (%v), want %d", call, attempts, err, want)
			}
		}
		other := newServer(answer{code: codes.Unavailable}, answer{code: codes.Unavailable}, answer{})
		lis := bufconn.Listen(1 << 16)
		otherCC := serve(t, other, lis, "passthrough:///other", append([]grpc.DialOption{
			grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })}, opts...))
		if _, err := get(t.Context(), otherCC, methodGet); err != nil || len(other.seen()) != 3 {
			t.Errorf("another target: %v after %d attempts; want success after 3 (a budget of its own)", err, len(other.seen()))
		}

		off := constant(t, 3, 10*time.Millisecond)
		off.Budget = retry.NoBudget
		down := newServer(answer{code: codes.Unavailable})
		cc = dialBufconn(t, down, interceptor(t, off, nil)...)
		for range 15 {
			_, _ = get(t.Context(), cc, methodGet)
		}
		if n := len(down.seen()); n != 45 {
			t.Errorf("NoBudget: %d attempts in 15 calls, want 45", n)
		}
	})
}
