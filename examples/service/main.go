// Command service is a small service built the way issue 17 describes a team adopting the
// library: two upstreams, pricing (a flaky GET) and orders (a POST that must never create an
// order twice), one shared client with a circuit breaker and a retry budget per host, a
// policy per kind of request, a database read wrapped in retry.DoValue, slog JSON logs
// carrying the request ID, and OpenTelemetry metrics.
//
// Usage:
//
//	go run ./examples/service -once   # two checkouts against local scripted upstreams; logs, then metrics
//	go run ./examples/service -addr 127.0.0.1:8080
//	                                  # serve; curl -X POST -H 'X-Request-ID: r-1' '127.0.0.1:8080/checkout?sku=a'
//
// The upstreams are retrytest servers on 127.0.0.1: pricing answers 503 once, then 12.50;
// orders drops the first POST's connection after creating the order, then answers 201, and
// honours Idempotency-Key. The database fails once ("database is locked").
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"sync/atomic"

	"github.com/retrykit/retry/otelretry"
	"github.com/retrykit/retry/retrytest"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "service:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("service", flag.ContinueOnError)
	once := fs.Bool("once", false, "send two checkouts (the second a retry of the first), print the logs and metrics, exit")
	addr := fs.String("addr", "127.0.0.1:8080", "where to serve without -once (loopback only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if host, _, err := net.SplitHostPort(*addr); err != nil || net.ParseIP(host) == nil || !net.ParseIP(host).IsLoopback() {
		return fmt.Errorf("-addr %q is not a loopback address and port: use 127.0.0.1:PORT", *addr)
	}
	up, err := startUpstreams()
	if err != nil {
		return err
	}
	defer up.Close()

	exporter, err := stdoutmetric.New(stdoutmetric.WithWriter(stdout), stdoutmetric.WithPrettyPrint())
	if err != nil {
		return err
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exporter)))
	defer provider.Shutdown(context.Background()) // exports the metrics a last time
	obs, err := otelretry.New(otelretry.Config{MeterProvider: provider})
	if err != nil {
		return err
	}
	svc, err := NewService(Config{PricingURL: up.pricing.URL, OrdersURL: up.orders.URL, Stock: up.stock,
		Logger: NewLogger(stdout, slog.LevelDebug, nil), Observer: obs})
	if err != nil {
		return err
	}
	defer svc.Close()
	handler := RequestIDs(svc)

	if !*once {
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: handler}
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
		go func() { <-ctx.Done(); srv.Close() }()
		fmt.Fprintf(stdout, "serving POST http://%s/checkout?sku=SKU; Ctrl-C to stop\n", ln.Addr())
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}

	for i := range 2 {
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/checkout?sku=a", nil)
		req.Header.Set(RequestIDHeader, "r-1") // the second is the caller retrying the first
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		fmt.Fprintf(stdout, "== checkout %d: %d %s", i+1, rec.Code, rec.Body.String())
	}
	fmt.Fprintf(stdout, "== pricing requests %d; orders requests %d, orders created %d\n",
		up.pricing.Requests(), up.orders.Requests(), up.orders.Orders())
	fmt.Fprintln(stdout, "== OpenTelemetry metrics (stdout exporter)")
	return nil // the deferred Shutdown exports the metrics
}

// upstreams are the scripted pricing and orders servers and the fake database.
type upstreams struct {
	pricing, orders *retrytest.Server
	stockCalls      atomic.Int64
}

func startUpstreams() (*upstreams, error) {
	pricing, err := retrytest.NewServer(retrytest.Script{Steps: []retrytest.Step{{Status: 503}, {Body: "12.50"}}})
	if err != nil {
		return nil, err
	}
	orders, err := retrytest.NewRoutedServer(retrytest.Routes{
		"POST /orders": {Steps: []retrytest.Step{{Action: retrytest.Drop}, {Status: 201, Body: "o-1"}}, Dedupe: true},
	})
	if err != nil {
		pricing.Close()
		return nil, err
	}
	return &upstreams{pricing: pricing, orders: orders}, nil
}

// stock is the fake database: locked on the first call, then 7 of everything.
func (u *upstreams) stock(ctx context.Context, sku string) (int, error) {
	if u.stockCalls.Add(1) == 1 {
		return 0, errors.New("database is locked")
	}
	return 7, ctx.Err()
}

func (u *upstreams) Close() {
	u.pricing.Close()
	u.orders.Close()
}
