// Command metrics shows what the otelretry and stdobs adapters report: it starts a flaky
// HTTP server on 127.0.0.1, sends it requests through a retry loop, and shows the counts as
// an expvar variable (served on /debug/vars) and as OpenTelemetry metrics (written to stdout
// by the SDK's stdout exporter; no collector, no network beyond 127.0.0.1).
//
// Usage:
//
//	go run ./examples/metrics -once          # 10 requests, print the metrics, exit
//	go run ./examples/metrics -addr 127.0.0.1:8080
//	                                          # a request a second; curl 127.0.0.1:8080/debug/vars
//
// The server answers, in turn, 503, 429 (Retry-After: 0) and 200, so every request
// succeeds on its third attempt; a last request to /missing gets a 404, which is not retried.
package main

import (
	"context"
	"encoding/json"
	"expvar"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/otelretry"
	"github.com/retrykit/retry/otelretry/stdobs"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "metrics:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("metrics", flag.ContinueOnError)
	once := fs.Bool("once", false, "send -requests requests, print the metrics and exit")
	requests := fs.Int("requests", 10, "requests sent with -once")
	addr := fs.String("addr", "127.0.0.1:8080", "where to serve /debug/vars without -once (loopback only)")
	seed := fs.Uint64("seed", 1, "seed of the backoff's jitter")
	name := fs.String("expvar", "retry", "name of the expvar variable holding the counts")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *requests < 1 || *requests > 1000 {
		return fmt.Errorf("-requests %d: use 1 to 1000", *requests)
	}

	server := httptest.NewServer(flaky())
	defer server.Close()

	exporter, err := stdoutmetric.New(stdoutmetric.WithWriter(stdout), stdoutmetric.WithPrettyPrint())
	if err != nil {
		return err
	}
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer provider.Shutdown(context.Background())
	obs, err := otelretry.New(otelretry.Config{MeterProvider: provider})
	if err != nil {
		return err
	}
	counts := new(retry.Metrics)
	if err := stdobs.Publish(*name, counts); err != nil {
		return err
	}
	strategy, err := backoff.New(backoff.Config{Kind: backoff.Exponential, Base: 5 * time.Millisecond,
		Max: 50 * time.Millisecond, Jitter: backoff.FullJitter})
	if err != nil {
		return err
	}
	policy := &retry.Policy{MaxAttempts: 4, Backoff: strategy, Timeout: 5 * time.Second,
		Random: backoff.NewSource(*seed), OnDecision: retry.Observers(counts.Observe, obs.Observe)}
	client := &http.Client{Transport: obs.Transport(nil), Timeout: 10 * time.Second}
	send := func(path string) { get(ctx, client, policy, server.URL+path) }

	vars := httptest.NewUnstartedServer(expvar.Handler())
	if !*once {
		host, _, err := net.SplitHostPort(*addr)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("-addr %q is not a loopback address and port: use 127.0.0.1:PORT", *addr)
		}
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return err
		}
		vars.Listener.Close()
		vars.Listener = ln
	}
	vars.Start()
	defer vars.Close()

	if !*once {
		fmt.Fprintf(stdout, "flaky server at %s; metrics at %s/debug/vars; Ctrl-C to stop\n", server.URL, vars.URL)
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
		for tick := time.NewTicker(time.Second); ctx.Err() == nil; {
			send("/")
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
		return nil
	}

	for range *requests {
		send("/")
	}
	send("/missing")
	fmt.Fprintln(stdout, "== expvar \"retry\" from", vars.URL+"/debug/vars")
	if err := showVar(stdout, vars.URL+"/debug/vars", *name); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "== OpenTelemetry metrics (stdout exporter)")
	var data metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &data); err != nil {
		return err
	}
	return exporter.Export(ctx, &data)
}

// get sends one GET through the retry loop, numbering its attempts for the spans.
func get(ctx context.Context, client *http.Client, p *retry.Policy, url string) {
	ctx = otelretry.NumberAttempts(ctx)
	attempt := func(ctx context.Context) (*http.Response, retry.Outcome) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, retry.Outcome{Err: retry.Permanent(err)}
		}
		resp, err := client.Do(req)
		o := retry.Outcome{Err: err}
		if err == nil {
			o.Status = resp.StatusCode
			// Seconds only, for brevity; retryhttp parses every form (SPEC R4.1).
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
				o.RetryAfter, o.HasRetryAfter, o.RetryAfterFrom = time.Duration(s)*time.Second, true, "retry-after"
			}
		}
		return resp, o
	}
	// The labels name the request in every decision record, as retryhttp's do.
	labels := []slog.Attr{slog.String("method", http.MethodGet), slog.String("url", url)}
	resp, final, _ := retry.Run(ctx, p, retry.Operation[*http.Response]{Attempt: attempt, Discard: closeBody, Attrs: labels})
	closeBody(resp)
	final.End()
}

func closeBody(resp *http.Response) {
	if resp != nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// flaky answers 503, then 429 with Retry-After: 0, then 200, in turn; /missing gets a 404.
func flaky() http.Handler {
	var n atomic.Uint64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		switch n.Add(1) % 3 {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			fmt.Fprintln(w, "ok")
		}
	})
}

// showVar fetches the expvar page at url and prints the variable name, indented.
func showVar(w io.Writer, url, name string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var vars map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&vars); err != nil {
		return err
	}
	out, err := json.MarshalIndent(vars[name], "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}
