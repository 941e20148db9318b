package retrygrpc_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/hedge"
	"github.com/retrykit/retry/retrygrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// hedging returns WithHedging over a group with a fixed delay and no hedge budget.
func hedging(t *testing.T, delay time.Duration) retrygrpc.Option {
	t.Helper()
	g, err := hedge.NewGroup(hedge.GroupConfig{Hedge: hedge.Config{Delay: delay, Budget: retry.None}})
	if err != nil {
		t.Fatal(err)
	}
	return retrygrpc.WithHedging(g)
}

// TestHedgeUnary: a slow call of an idempotent method is hedged after the delay; the
// hedge's reply reaches the caller, the hedge says so in its metadata, and the records say
// which attempt won.
func TestHedgeUnary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{delay: 5 * time.Second}, answer{delay: 10 * time.Millisecond})
		var rec records
		cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), &rec, hedging(t, 100*time.Millisecond))...)
		start := time.Now()
		got, err := get(t.Context(), cc, methodGet)
		if err != nil || got != "echo x" {
			t.Fatalf("get = %q, %v; want the hedge's echo x", got, err)
		}
		if took := time.Since(start); took < 110*time.Millisecond || took > 150*time.Millisecond {
			t.Errorf("took %v, want the hedge's 110ms and a little", took)
		}
		seen := s.seen()
		if len(seen) != 2 {
			t.Fatalf("server saw %d calls, want the attempt and its hedge", len(seen))
		}
		if a, h := seen[0], seen[1]; len(a.attempt) != 1 || a.attempt[0] != "1" || len(a.hedge) != 0 ||
			len(h.attempt) != 1 || h.attempt[0] != "1" || len(h.hedge) != 1 || h.hedge[0] != "1" {
			t.Errorf("metadata: attempt %v %v, hedge %v %v; want retry-attempt 1 on both, retry-hedge 1 on the hedge",
				a.attempt, a.hedge, h.attempt, h.hedge)
		}
		ds := rec.all()
		if len(ds) != 2 || !ds[0].Lost || ds[0].Hedge || !ds[1].Hedge || !ds[1].Winner || grpcCode(ds[1]) != "OK" {
			t.Errorf("records %+v, want the attempt lost, then the hedge winning with OK", ds)
		}
	})
}

// TestHedgeUnaryNotForWrites: a call of a method that is not idempotent is never hedged,
// unless it carries an idempotency key; nor is a call that reads its header back.
func TestHedgeUnaryNotForWrites(t *testing.T) {
	for _, c := range []struct {
		name   string
		method string
		key    bool
		opts   []grpc.CallOption
		calls  int
	}{
		{"Post without a key", methodPost, false, nil, 1},
		{"Post with a key", methodPost, true, nil, 2},
		{"Get reading its header", methodGet, false, []grpc.CallOption{grpc.Header(new(metadata.MD))}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(answer{delay: time.Second}, answer{})
				cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), nil, hedging(t, 100*time.Millisecond))...)
				ctx := t.Context()
				if c.key {
					ctx = metadata.AppendToOutgoingContext(ctx, retrygrpc.DefaultIdempotencyKey, "k-26")
				}
				if got, err := get(ctx, cc, c.method, c.opts...); err != nil || got != "echo x" {
					t.Fatalf("get = %q, %v", got, err)
				}
				seen := s.seen()
				if len(seen) != c.calls {
					t.Fatalf("server saw %d calls, want %d", len(seen), c.calls)
				}
				if c.key && (len(seen[1].key) != 1 || seen[1].key[0] != "k-26") {
					t.Errorf("the hedge carried key %v, want the call's k-26", seen[1].key)
				}
			})
		})
	}
}
