package retrygrpc_test

import (
	"testing"
	"testing/synctest"
	"time"

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
