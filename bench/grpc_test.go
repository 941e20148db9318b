package bench

import (
	"context"
	"net"
	"sync/atomic"
	"testing"

	grpcretry "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry"
	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/retrygrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// checkMethod is the unary call of the gRPC benchmarks: grpc.health.v1.Health/Check, on a
// loopback server, its descriptor registered by grpc-go (no idempotency level in it).
const checkMethod = "/grpc.health.v1.Health/Check"

// healthServer answers Check; with failEvery n > 0, it answers UNAVAILABLE to all but every
// n-th call (n-1 failures, then a success).
type healthServer struct {
	healthpb.UnimplementedHealthServer
	failEvery uint64
	calls     atomic.Uint64
}

func (s *healthServer) Check(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	if n := s.calls.Add(1); s.failEvery > 0 && n%s.failEvery != 0 {
		return nil, status.Error(codes.Unavailable, "try again")
	}
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

// serveHealth starts s on a free 127.0.0.1 port for the benchmark.
func serveHealth(b *testing.B, s *healthServer) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	gs := grpc.NewServer()
	healthpb.RegisterHealthServer(gs, s)
	go gs.Serve(lis)
	b.Cleanup(gs.Stop)
	return lis.Addr().String()
}

// grpcClients returns each way to call Check with up to 3 attempts on UNAVAILABLE and zero
// waits, next to the plain call, each on its own connection to target. Check counts as
// idempotent for retrygrpc (WithIdempotentMethods): go-grpc-middleware retries any method.
func grpcClients(b *testing.B, target string) []struct {
	name string
	cc   *grpc.ClientConn
} {
	zero, err := backoff.New(backoff.Config{Kind: backoff.Constant, Jitter: backoff.NoJitter})
	if err != nil {
		b.Fatal(err)
	}
	ours := func(p retry.Policy) []grpc.DialOption {
		p.MaxAttempts, p.Backoff = 3, zero
		ic, err := retrygrpc.New(retrygrpc.WithPolicy(&p), retrygrpc.WithIdempotentMethods(checkMethod))
		if err != nil {
			b.Fatal(err)
		}
		return ic.DialOptions()
	}
	middleware := []grpc.DialOption{grpc.WithChainUnaryInterceptor(grpcretry.UnaryClientInterceptor(
		grpcretry.WithMax(3), grpcretry.WithCodes(codes.Unavailable), grpcretry.WithBackoff(grpcretry.BackoffLinear(0))))}
	clients := []struct {
		name string
		opts []grpc.DialOption
	}{
		{"grpc", nil},
		// retrygrpc with the zero policy's 30 s deadline on every call (a deadline context
		// per attempt, sent as grpc-timeout) and the target's default retry budget, and
		// without them, bounding attempts only as the middleware does.
		{"retrygrpc", ours(retry.Policy{})},
		{"retrygrpc-no-deadline", ours(retry.Policy{Timeout: retry.NoLimit, Budget: retry.NoBudget})},
		{"go-grpc-middleware-v2", middleware},
	}
	out := make([]struct {
		name string
		cc   *grpc.ClientConn
	}, len(clients))
	for i, c := range clients {
		cc, err := grpc.NewClient(target, append(c.opts, grpc.WithTransportCredentials(insecure.NewCredentials()))...)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cc.Close() })
		out[i].name, out[i].cc = c.name, cc
	}
	return out
}

// BenchmarkGRPCUnary: one successful unary call through each client: the interceptors'
// overhead over the plain call.
func BenchmarkGRPCUnary(b *testing.B) {
	target := serveHealth(b, &healthServer{})
	for _, c := range grpcClients(b, target) {
		b.Run("lib="+c.name, func(b *testing.B) {
			client := healthpb.NewHealthClient(c.cc)
			ctx := context.Background()
			req := &healthpb.HealthCheckRequest{}
			if _, err := client.Check(ctx, req); err != nil { // connect outside the measure
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := client.Check(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGRPCUnaryTwoFailures: UNAVAILABLE twice, then OK on attempt 3, with zero waits
// (the plain call is left out: it does not retry).
func BenchmarkGRPCUnaryTwoFailures(b *testing.B) {
	s := &healthServer{failEvery: 3}
	target := serveHealth(b, s)
	for _, c := range grpcClients(b, target)[1:] {
		b.Run("lib="+c.name, func(b *testing.B) {
			client := healthpb.NewHealthClient(c.cc)
			ctx := context.Background()
			req := &healthpb.HealthCheckRequest{}
			s.calls.Store(0)
			if _, err := client.Check(ctx, req); err != nil { // connect outside the measure
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s.calls.Store(0)
				if _, err := client.Check(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
