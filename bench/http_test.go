package bench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	avast "github.com/avast/retry-go/v4"
	cenkalti "github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	sethvargo "github.com/sethvargo/go-retry"
)

// getter performs one GET of url and returns the response, whose body the caller drains and
// closes.
type getter func(url string) (*http.Response, error)

// transport is a fresh pooled transport per client, so clients never share connections.
func transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}

// httpClients returns each library's way to GET with retries (3 attempts), next to plain
// net/http, every one on its own transport.
func httpClients() []struct {
	name string
	get  getter
} {
	ctx := context.Background()
	plain := &http.Client{Transport: transport()}

	// ours enforces its default 30 s deadline on every request (a deadline context per
	// attempt) and keeps the default retry budget of the destination, which no peer does;
	// ourBare bounds attempts only, like the peers.
	ours := &http.Client{Transport: &retryhttp.Transport{Base: transport(), Policy: &retry.Policy{}}}
	ourBare := &http.Client{Transport: &retryhttp.Transport{Base: transport(),
		Policy: &retry.Policy{Timeout: retry.NoLimit, Budget: retry.NoBudget}}}

	rh := retryablehttp.NewClient()
	rh.HTTPClient = &http.Client{Transport: transport()}
	rh.Logger = nil
	rh.RetryMax = 2

	fs := &http.Client{Transport: failsafehttp.NewRoundTripper(transport(), failsafehttp.NewRetryPolicyBuilder().Build())}

	ck := &http.Client{Transport: transport()}
	av := &http.Client{Transport: transport()}
	sv := &http.Client{Transport: transport()}
	svBackoff := func() sethvargo.Backoff {
		return sethvargo.WithMaxRetries(2, sethvargo.NewConstant(100*time.Millisecond))
	}

	return []struct {
		name string
		get  getter
	}{
		{"net-http", func(url string) (*http.Response, error) {
			resp, err := plain.Get(url)
			return resp, err
		}},
		{"retry", ours.Get},
		{"retry-no-deadline", ourBare.Get},
		{"hashicorp-go-retryablehttp", func(url string) (*http.Response, error) {
			resp, err := rh.Get(url)
			return resp, err
		}},
		{"failsafe-go", func(url string) (*http.Response, error) {
			resp, err := fs.Get(url)
			return resp, err
		}},
		{"cenkalti-backoff-v5", func(url string) (*http.Response, error) {
			resp, err := cenkalti.Retry(ctx, func() (*http.Response, error) { return ck.Get(url) }, cenkalti.WithMaxTries(3))
			return resp, err
		}},
		{"avast-retry-go-v4", func(url string) (*http.Response, error) {
			resp, err := avast.DoWithData(func() (*http.Response, error) { return av.Get(url) }, avast.Context(ctx), avast.Attempts(3))
			return resp, err
		}},
		{"sethvargo-go-retry", func(url string) (*http.Response, error) {
			resp, err := sethvargo.DoValue(ctx, svBackoff(), func(context.Context) (*http.Response, error) { return sv.Get(url) })
			return resp, err
		}},
	}
}

// newServer starts a loopback server (127.0.0.1) that answers every GET with a short body.
func newServer(tb testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok\n")
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// fetch GETs url with get, reads the body to the end and closes it.
func fetch(tb testing.TB, get getter, url string) {
	resp, err := get(url)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("status %d", resp.StatusCode)
	}
}

// BenchmarkHTTPGet: one GET on a loopback server through each client, one goroutine.
func BenchmarkHTTPGet(b *testing.B) {
	srv := newServer(b)
	for _, c := range httpClients() {
		b.Run("lib="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fetch(b, c.get, srv.URL)
			}
		})
	}
}

// BenchmarkHTTPGetParallel: the same with GOMAXPROCS goroutines at once.
func BenchmarkHTTPGetParallel(b *testing.B) {
	srv := newServer(b)
	for _, c := range httpClients() {
		b.Run("lib="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					fetch(b, c.get, srv.URL)
				}
			})
		})
	}
}

// BenchmarkHTTPGetInterleaved compares each client with plain net/http in one loop: every
// iteration makes one GET with each, in alternating order, timing each GET, so that what
// else the machine runs weighs on both alike. It reports the client's throughput as a
// share of plain net/http's (x-net-http: 1 is as fast, 0.98 is 2% slower) and its own
// time per GET; allocations are BenchmarkHTTPGet's.
func BenchmarkHTTPGetInterleaved(b *testing.B) {
	srv := newServer(b)
	clients := httpClients()
	plain := clients[0]
	for _, c := range clients[1:] {
		b.Run("lib="+c.name, func(b *testing.B) {
			var plainTime, libTime time.Duration
			timed := func(get getter) time.Duration {
				start := time.Now()
				fetch(b, get, srv.URL)
				return time.Since(start)
			}
			odd := false
			for b.Loop() {
				if odd = !odd; odd {
					plainTime += timed(plain.get)
					libTime += timed(c.get)
				} else {
					libTime += timed(c.get)
					plainTime += timed(plain.get)
				}
			}
			b.ReportMetric(float64(plainTime)/float64(libTime), "x-net-http")
			b.ReportMetric(float64(libTime.Nanoseconds())/float64(b.N), "lib-ns/GET")
			b.ReportMetric(0, "ns/op") // two GETs an iteration: lib-ns/GET is the one to read
		})
	}
}

// TestHTTPClientsWork is the quick smoke test that `go test ./...` runs: every client gets
// a 200 from the loopback server once.
func TestHTTPClientsWork(t *testing.T) {
	srv := newServer(t)
	for _, c := range httpClients() {
		fetch(t, c.get, srv.URL)
	}
}
