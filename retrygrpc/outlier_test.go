package retrygrpc_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/retrygrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	_ "google.golang.org/grpc/xds" // registers grpc-go's outlier_detection_experimental balancer (gRFC A50)
)

// outlierDetection is a service config that ejects, every second, a backend of which more
// than half the calls failed (gRFC A50's failure-percentage algorithm), at most half of the
// backends, for 30 s, and balances round robin over the others. No xDS control plane is
// involved: grpc-go registers the balancer when google.golang.org/grpc/xds is imported.
const outlierDetection = `{"loadBalancingConfig": [{"outlier_detection_experimental": {
  "interval": "1s", "baseEjectionTime": "30s", "maxEjectionPercent": 50,
  "failurePercentageEjection": {"threshold": 50, "enforcementPercentage": 100, "minimumHosts": 2, "requestVolume": 5},
  "childPolicy": [{"round_robin": {}}]}}]}`

// Issue 23 item 8: one target, two backends behind it, one sick. The breaker is kept per
// target: it cannot tell the backends apart, and while the balancer still sends calls to
// the sick one, each call's retry reaches the healthy one, so the breaker stays CLOSED and
// every call succeeds. grpc-go's outlier detection ejects the sick backend after its
// interval: each call then takes one attempt. When the last backend falls sick too, the
// ejection limit keeps it, and the target's breaker opens and refuses calls at once.
func TestOutlierDetectionWithBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sick, healthy := newServer(answer{code: codes.Unavailable}), newServer()
		listeners := map[string]*bufconn.Listener{}
		for addr, s := range map[string]*server{"sick": sick, "healthy": healthy} {
			lis := bufconn.Listen(1 << 16)
			gs := grpc.NewServer()
			s.register(gs)
			go gs.Serve(lis)
			t.Cleanup(gs.Stop)
			listeners[addr] = lis
		}
		backends := manual.NewBuilderWithScheme("backends")
		backends.InitialState(resolver.State{Endpoints: []resolver.Endpoint{
			{Addresses: []resolver.Address{{Addr: "sick"}}}, {Addresses: []resolver.Address{{Addr: "healthy"}}}}})
		breakers, err := breaker.NewGroup(breaker.GroupConfig{Breaker: breaker.Config{ConsecutiveFailures: 3, OpenTimeout: time.Minute}})
		if err != nil {
			t.Fatal(err)
		}
		var rec records
		cc, err := grpc.NewClient("backends:///shop", append(interceptor(t, constant(t, 3, 0), &rec, retrygrpc.WithBreakers(breakers)),
			grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithResolvers(backends),
			grpc.WithDefaultServiceConfig(outlierDetection),
			grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) { return listeners[addr].DialContext(ctx) }))...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cc.Close() })
		cc.Connect()
		synctest.Wait() // both backends connected: round robin over the two

		calls := func(n int) (attempts int) {
			t.Helper()
			before := len(rec.all())
			for range n {
				if _, err := get(t.Context(), cc, methodGet); err != nil {
					t.Fatalf("call: %v, want success", err)
				}
			}
			return len(rec.all()) - before
		}
		// Before the first sweep: round robin alternates, so one call in two, or every
		// call, meets the sick backend first and is retried on the healthy one.
		if n := calls(10); n < 19 || len(sick.seen()) < 9 {
			t.Errorf("before ejection: %d attempts for 10 calls, %d at the sick backend; want 19 or 20, at least 9", n, len(sick.seen()))
		}
		if state := breakers.Get(cc.Target()).State().String(); state != "CLOSED" {
			t.Errorf("the target's breaker is %s, want CLOSED: no three failures in a row", state)
		}

		time.Sleep(1100 * time.Millisecond) // the sweep at 1 s ejects the sick backend
		synctest.Wait()
		sickBefore := len(sick.seen())
		if n := calls(10); n != 10 || len(sick.seen()) != sickBefore {
			t.Errorf("after ejection: %d attempts for 10 calls, %d new at the sick backend; want 10 and 0", n, len(sick.seen())-sickBefore)
		}

		// The healthy backend falls sick too: at most half the backends are ejected, so the
		// target's breaker is what stops the calls.
		healthy.always(answer{code: codes.Unavailable})
		_, err = get(t.Context(), cc, methodGet)
		if !errors.Is(err, retry.ErrAttemptsExhausted) || breakers.Get(cc.Target()).State().String() != "OPEN" {
			t.Fatalf("both sick: %v, want attempts_exhausted, the third failure in a row opening the breaker", err)
		}
		seen := len(healthy.seen())
		_, err = get(t.Context(), cc, methodGet)
		if !errors.Is(err, retry.ErrCircuitOpen) || status.Code(err) != codes.Unavailable || len(healthy.seen()) != seen {
			t.Errorf("next call: %v (%v), %d new attempts; want circuit_open, UNAVAILABLE, none", err, status.Code(err), len(healthy.seen())-seen)
		}
		want := fmt.Sprintf(`{"attempt":0,"method":%q,"elapsed_ms":0,"remaining_ms":30000,"decision":"stop","reason":"circuit_open","outcome":"failure","no_attempt":true,"breaker":"OPEN"}`, methodGet)
		if got := rec.last(t); got != want {
			t.Errorf("record of the refusal\n got %s\nwant %s", got, want)
		}
	})
}
