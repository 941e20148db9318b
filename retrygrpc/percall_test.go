package retrygrpc_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retrygrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A policy given as a call option replaces the interceptor's for that call only; the
// metrics of the policy that ran count its attempts and retries.
func TestPolicyPerCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable})
		clientMetrics, callMetrics := new(retry.Metrics), new(retry.Metrics)
		p := constant(t, 2, 0)
		p.OnDecision = clientMetrics.Observe
		cc := dialBufconn(t, s, interceptor(t, p, nil)...)
		if _, err := get(t.Context(), cc, methodGet); !errors.Is(err, retry.ErrAttemptsExhausted) || len(s.seen()) != 2 {
			t.Fatalf("client policy: %v after %d attempts, want attempts_exhausted after 2", err, len(s.seen()))
		}
		call := constant(t, 4, 10*time.Millisecond)
		call.OnDecision = callMetrics.Observe
		start := time.Now()
		if _, err := get(t.Context(), cc, methodGet, retrygrpc.WithPolicy(&call)); !errors.Is(err, retry.ErrAttemptsExhausted) || len(s.seen()) != 6 {
			t.Fatalf("call policy: %v after %d attempts in all, want attempts_exhausted after 2+4", err, len(s.seen()))
		}
		if elapsed := time.Since(start); elapsed != 30*time.Millisecond {
			t.Errorf("the call's 4 attempts took %v, want 3 waits of 10ms", elapsed)
		}
		if c, k := clientMetrics.Snapshot(), callMetrics.Snapshot(); c.Attempts != 2 || c.Retries != 1 || k.Attempts != 4 || k.Retries != 3 {
			t.Errorf("metrics: client %d attempts %d retries, call %d attempts %d retries; want 2/1 and 4/3",
				c.Attempts, c.Retries, k.Attempts, k.Retries)
		}
	})
}

// A call inside another retry loop's attempt follows the policy's Nested rule: with
// NestedSingleAttempt it makes one attempt and leaves retrying to the outer loop.
func TestNestedSingleAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.Unavailable})
		p := constant(t, 3, 0)
		p.Nested = retry.NestedSingleAttempt
		var rec records
		cc := dialBufconn(t, s, interceptor(t, p, &rec)...)
		outer := constant(t, 2, 0)
		err := retry.Do(t.Context(), &outer, func(ctx context.Context) error {
			_, err := get(ctx, cc, methodGet)
			return err
		})
		if status.Code(err) != codes.Unavailable || len(s.seen()) != 2 {
			t.Errorf("error %v after %d attempts, want UNAVAILABLE after 2 (1 per outer attempt)", err, len(s.seen()))
		}
		for _, d := range rec.all() {
			if !d.Nested || d.Reason != retry.ReasonAttemptsExhausted {
				t.Errorf("inner decision nested=%v %s, want nested attempts_exhausted", d.Nested, d.Reason)
			}
		}
	})
}

// A server stream that ends with OK before any message (a trailers-only response) is a
// success: the caller reads io.EOF at once.
func TestServerStreamEmptySuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(answer{code: codes.OK, empty: true})
		var rec records
		cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), &rec)...)
		got, err := list(t, cc)
		if err != nil || len(got) != 0 || len(s.seen()) != 1 {
			t.Errorf("list = %q, %v after %d attempts; want nothing, io.EOF, 1 attempt", got, err, len(s.seen()))
		}
		if got, want := reasons(rec.all()), "success/OK"; got != want {
			t.Errorf("decisions %s, want %s", got, want)
		}
	})
}
