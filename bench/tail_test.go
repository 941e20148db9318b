package bench

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/hedge"
	"github.com/retrykit/retry/retrygrpc"
	"github.com/retrykit/retry/retryhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// The tail measurement (issue 26): the model of `retry simulate --scenario tail` on a real
// loopback server, through retryhttp and retrygrpc. Every request the server receives,
// hedges included, takes a service time drawn on its own (lognormal, mean 5 ms, σ 0.5, plus
// for 1 % of them a pause uniform in 200-1,000 ms), cut short when the client cancels it.
// Requests go out at a steady rate, each on a goroutine of its own. Run it with
//
//	go test ./bench -run TestTailRealServer -tail -v
//
// The two rows of a transport (no hedging, ours) run at the same time, each against a server
// of its own. Each row first sends -tail.warmup requests it does not count, so that the adaptive delay
// has latencies to read (it hedges at its cap, 1 s, until it holds 667: the simulator's
// 100,000 requests make that share negligible, these runs would not), then -tail.requests
// requests it counts (four rows); it gives up after -tail.timeout. The rate is modest, 300/s
// a row, because clients and servers share this process and a 2-core machine: at 1,000/s
// their own scheduling delays, not the model's pauses, made the tail.
var (
	tailOn       = flag.Bool("tail", false, "run TestTailRealServer")
	tailRequests = flag.Int("tail.requests", 15000, "requests counted per row of TestTailRealServer")
	tailWarmup   = flag.Int("tail.warmup", 1000, "requests sent per row before those counted")
	tailRate     = flag.Float64("tail.rate", 300, "requests per second of TestTailRealServer")
	tailTimeout  = flag.Duration("tail.timeout", 10*time.Minute, "how long TestTailRealServer may run in all")
	tailPauses   = flag.Float64("tail.pauses", 0.01, "share of requests that pause 200-1000 ms; 0 shows the machine's own tail")
)

// tailServer draws each request's service time and counts the requests it receives.
type tailServer struct {
	healthpb.UnimplementedHealthServer
	mu       sync.Mutex
	rng      *rand.Rand
	received atomic.Int64
}

func newTailServer(seed uint64) *tailServer {
	return &tailServer{rng: rand.New(rand.NewPCG(seed, 26))}
}

// serve takes one request's service time, or until ctx ends; it reports whether it served.
func (s *tailServer) serve(ctx context.Context) bool {
	s.received.Add(1)
	s.mu.Lock()
	ms := math.Exp(math.Log(5)-0.125+0.5*s.rng.NormFloat64()) + pause(s.rng)
	s.mu.Unlock()
	t := time.NewTimer(time.Duration(ms * float64(time.Millisecond)))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// pause is the extra time of -tail.pauses of requests (1 %): uniform in 200-1,000 ms.
func pause(rng *rand.Rand) float64 {
	if rng.Float64() < *tailPauses {
		return 200 + 800*rng.Float64()
	}
	return 0
}

func (s *tailServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.serve(r.Context()) {
		io.WriteString(w, "ok")
	}
}

func (s *tailServer) Check(ctx context.Context, _ *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	s.serve(ctx)
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, ctx.Err()
}

// tailRow is what one row measured.
type tailRow struct {
	name                  string
	requests, failed      int
	p50, p99, p999, extra float64
	metrics               retry.MetricsSnapshot // hedges sent, won and refused
}

// drive sends n requests at rate through call, each on a goroutine, and returns their
// latencies and how many failed. It stops sending at ctx's end.
func drive(ctx context.Context, n int, rate float64, call func(context.Context) error) ([]time.Duration, int) {
	latencies := make([]time.Duration, n)
	var failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	sent := 0
	for i := range n {
		next := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
		if d := time.Until(next); d > 0 {
			time.Sleep(d) // the arrivals' own schedule, not a wait for a result
		}
		if ctx.Err() != nil {
			break
		}
		sent++
		wg.Go(func() {
			t := time.Now()
			if err := call(ctx); err != nil {
				failed.Add(1)
			}
			latencies[i] = time.Since(t)
		})
	}
	wg.Wait()
	return latencies[:sent], int(failed.Load())
}

// measure runs one row against srv, after its warm-up, and summarizes it; m counts the
// decisions of the counted requests.
func measure(ctx context.Context, name string, srv *tailServer, m *atomic.Pointer[retry.Metrics], call func(context.Context) error) tailRow {
	m.Store(new(retry.Metrics))
	drive(ctx, *tailWarmup, *tailRate, call)
	counted := new(retry.Metrics)
	m.Store(counted)
	before := srv.received.Load()
	latencies, failed := drive(ctx, *tailRequests, *tailRate, call)
	slices.Sort(latencies)
	q := func(p float64) float64 {
		return float64(latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]) / 1e6
	}
	n := len(latencies)
	return tailRow{name: name, requests: n, failed: failed, p50: q(0.5), p99: q(0.99), p999: q(0.999),
		extra: 100 * (float64(srv.received.Load()-before)/float64(n) - 1), metrics: counted.Snapshot()}
}

// observer counts decisions in the Metrics m holds at the time.
func observer(m *atomic.Pointer[retry.Metrics]) retry.Observer {
	return func(ctx context.Context, d retry.Decision) { m.Load().Observe(ctx, d) }
}

// ours is the library's Hedger with the zero Config but for the budget, as the simulator's
// row: a Group of them, one per destination.
func ours(t *testing.T) *hedge.Group {
	g, err := hedge.NewGroup(hedge.GroupConfig{Hedge: hedge.Config{Budget: 0.02}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestTailRealServer(t *testing.T) {
	if !*tailOn {
		t.Skip("the tail measurement sends thousands of requests a row: run it with -tail")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *tailTimeout)
	defer cancel()
	// Each row has a server of its own, so that its count of requests is its own; the two
	// rows of a transport run at the same time, so that what else the machine runs weighs on
	// both alike.
	httpRow := func(name string, seed uint64, hedges *hedge.Group) tailRow {
		srv := newTailServer(seed)
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Error(err)
			return tailRow{name: name}
		}
		hs := &http.Server{Handler: srv}
		go hs.Serve(lis)
		defer hs.Close()
		url := "http://" + lis.Addr().String() + "/item"
		base := transport()
		base.MaxIdleConnsPerHost = 256
		defer base.CloseIdleConnections()
		var m atomic.Pointer[retry.Metrics]
		c := &http.Client{Transport: &retryhttp.Transport{Base: base, Hedges: hedges, Policy: &retry.Policy{OnDecision: observer(&m)}}}
		return measure(ctx, name, srv, &m, func(ctx context.Context) error {
			req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
			if err != nil {
				return err
			}
			resp, err := c.Do(req)
			if err != nil {
				return err
			}
			io.Copy(io.Discard, resp.Body)
			return resp.Body.Close()
		})
	}
	grpcRow := func(name string, seed uint64, hedges *hedge.Group) tailRow {
		srv := newTailServer(seed)
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Error(err)
			return tailRow{name: name}
		}
		gs := grpc.NewServer()
		healthpb.RegisterHealthServer(gs, srv)
		go gs.Serve(lis)
		defer gs.Stop()
		var m atomic.Pointer[retry.Metrics]
		opts := []retrygrpc.Option{retrygrpc.WithPolicy(&retry.Policy{OnDecision: observer(&m)}), retrygrpc.WithIdempotentMethods(checkMethod)}
		if hedges != nil {
			opts = append(opts, retrygrpc.WithHedging(hedges))
		}
		ic, err := retrygrpc.New(opts...)
		if err != nil {
			t.Error(err)
			return tailRow{name: name}
		}
		cc, err := grpc.NewClient(lis.Addr().String(), append(ic.DialOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
		if err != nil {
			t.Error(err)
			return tailRow{name: name}
		}
		defer cc.Close()
		client := healthpb.NewHealthClient(cc)
		return measure(ctx, name, srv, &m, func(ctx context.Context) error {
			_, err := client.Check(ctx, &healthpb.HealthCheckRequest{})
			return err
		})
	}
	together := func(a, b func() tailRow) []tailRow {
		rows := make([]tailRow, 2)
		var wg sync.WaitGroup
		wg.Go(func() { rows[0] = a() })
		wg.Go(func() { rows[1] = b() })
		wg.Wait()
		return rows
	}
	rows := together(func() tailRow { return httpRow("retryhttp, no hedging", 1, nil) },
		func() tailRow { return httpRow("retryhttp, ours: adaptive, 2% budget", 2, ours(t)) })
	rows = append(rows, together(func() tailRow { return grpcRow("retrygrpc, no hedging", 3, nil) },
		func() tailRow { return grpcRow("retrygrpc, ours: adaptive, 2% budget", 4, ours(t)) })...)
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests a row (after %d not counted) at %.0f/s to a loopback server (lognormal 5 ms, σ 0.5, %.1f%% pauses of 200-1000 ms)\n",
		*tailRequests, *tailWarmup, *tailRate, *tailPauses*100)
	fmt.Fprintf(&b, "%-38s %8s %6s %7s %7s %8s %9s %6s %4s %s\n", "row", "requests", "failed", "p50_ms", "p99_ms", "p999_ms",
		"extra_pct", "hedges", "won", "refused")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-38s %8d %6d %7.1f %7.1f %8.1f %9.2f %6d %4d %v\n", r.name, r.requests, r.failed, r.p50, r.p99, r.p999,
			r.extra, r.metrics.Hedges, r.metrics.HedgesWon, r.metrics.HedgesRefused)
		if r.failed > 0 {
			t.Errorf("%s: %d requests failed", r.name, r.failed)
		}
	}
	t.Log("\n" + b.String())
}
