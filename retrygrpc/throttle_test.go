package retrygrpc_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/retrygrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Issue 32 item 1: RESOURCE_EXHAUSTED from the service is a throttle (retry.Outcome.Throttled,
// the record's "throttled"): the target's breaker, which two UNAVAILABLE in a row open, stays
// CLOSED after five of them. grpc-go's own RESOURCE_EXHAUSTED for a message over a size limit
// is no throttle.
func TestResourceExhaustedIsAThrottle(t *testing.T) {
	for _, c := range []struct {
		message   string
		throttled bool
	}{
		{"quota exceeded for requests per minute", true},
		{"grpc: received message larger than max (5 vs. 4)", false},
		{"trying to send message larger than max (5 vs. 4)", false},
		{"grpc: message too large (5 bytes)", false},
	} {
		synctest.Test(t, func(t *testing.T) {
			breakers, err := breaker.NewGroup(breaker.GroupConfig{Breaker: breaker.Config{ConsecutiveFailures: 2, OpenTimeout: time.Minute}})
			if err != nil {
				t.Fatal(err)
			}
			s := newServer(answer{code: codes.ResourceExhausted, message: c.message})
			var rec records
			cc := dialBufconn(t, s, interceptor(t, constant(t, 3, 0), &rec, retrygrpc.WithBreakers(breakers))...)
			for range 5 {
				if _, err := get(t.Context(), cc, methodGet); status.Code(err) != codes.ResourceExhausted {
					t.Fatalf("%q: error %v, want RESOURCE_EXHAUSTED", c.message, err)
				}
			}
			if got := len(s.seen()); got != 5 {
				t.Errorf("%q: %d attempts, want 5: one a call, none refused", c.message, got)
			}
			if state := breakers.Get(cc.Target()).State(); state != breaker.StateClosed {
				t.Errorf("%q: breaker %v, want CLOSED", c.message, state)
			}
			for _, d := range rec.all() {
				if d.Throttled != c.throttled {
					t.Errorf("%q: decision throttled %v, want %v", c.message, d.Throttled, c.throttled)
				}
			}
		})
	}
}

// The target's default rate gate (issue 32 item 2: per target in retrygrpc): after a
// RESOURCE_EXHAUSTED whose server asked for a wait (a RetryInfo of 2 s), a call started
// meanwhile waits at the gate until then rather than be sent into another refusal, and
// its record says how long (gate_wait_ms); retry.NoRateGate turns the gate off.
func TestTargetRateGate(t *testing.T) {
	for _, off := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			delay := 2 * time.Second
			s := newServer(answer{code: codes.ResourceExhausted, retryInfo: &delay}, answer{}, answer{})
			var rec records
			p := constant(t, 1, 0) // one attempt: the first call stops on the throttle
			if off {
				p.RateGate = retry.NoRateGate
			}
			cc := dialBufconn(t, s, interceptor(t, p, &rec)...)
			start := time.Now()
			if _, err := get(t.Context(), cc, methodGet); status.Code(err) != codes.ResourceExhausted {
				t.Fatalf("first call: %v", err)
			}
			time.Sleep(500 * time.Millisecond)
			if _, err := get(t.Context(), cc, methodGet); err != nil {
				t.Fatalf("second call: %v", err)
			}
			attempts := s.seen()
			want := 2 * time.Second
			if off {
				want = 500 * time.Millisecond
			}
			if got := attempts[1].at.Sub(start); len(attempts) != 2 || got != want {
				t.Errorf("gate off %v: %d attempts, the second sent at %v; want %v", off, len(attempts), got, want)
			}
			if d := rec.all()[1]; !off && d.GateWait != 1500*time.Millisecond {
				t.Errorf("the second call's record: gate wait %v, want 1.5s", d.GateWait)
			}
		})
	}
}
