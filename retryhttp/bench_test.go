package retryhttp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// benchClients starts a loopback server and returns a plain client and a retrying one, each
// with its own http.Transport so that both have warm connection pools.

// benchClient is a client of the benchmarks, on its own connection pool.
type benchClient struct {
	name   string
	client *http.Client
}

// benchClients starts a loopback server and returns its URL, the plain client, and the
// retrying ones: the zero policy (its 30 s deadline enforced through a deadline context per
// attempt), and attempts bounded alone (Timeout: retry.NoLimit; attempts run with the
// caller's context). Records are off in both.
func benchClients(b *testing.B) (url string, plain *http.Client, retrying []benchClient) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok")
	}))
	b.Cleanup(srv.Close)
	pool := func() *http.Transport {
		t := &http.Transport{MaxIdleConnsPerHost: 64}
		b.Cleanup(t.CloseIdleConnections)
		return t
	}
	return srv.URL, &http.Client{Transport: pool()}, []benchClient{
		{"retryhttp", &http.Client{Transport: &retryhttp.Transport{Base: pool()}}},
		{"retryhttp-no-deadline", &http.Client{Transport: &retryhttp.Transport{Base: pool(), Policy: &retry.Policy{Timeout: retry.NoLimit}}}},
	}
}

func get(b *testing.B, c *http.Client, url string) {
	resp, err := c.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// BenchmarkGET compares a GET through the retrying Transport with the plain http.Transport,
// server included, serially and in parallel.
func BenchmarkGET(b *testing.B) {
	url, plain, retrying := benchClients(b)
	for _, c := range append([]benchClient{{"plain", plain}}, retrying...) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				get(b, c.client, url)
			}
		})
		b.Run(c.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					get(b, c.client, url)
				}
			})
		})
	}
}

// BenchmarkGETInterleaved sends one request through the plain client and one through a
// retrying client in turn, so that both see the same machine noise, and reports
// plain-throughput-ratio: the retrying client's throughput as a share of the plain one's (1
// means no cost). Times are per pair.
func BenchmarkGETInterleaved(b *testing.B) {
	url, plain, retrying := benchClients(b)
	for _, c := range retrying {
		b.Run(c.name+"/serial", func(b *testing.B) {
			var tp, tr time.Duration
			for b.Loop() {
				t0 := time.Now()
				get(b, plain, url)
				t1 := time.Now()
				get(b, c.client, url)
				tp, tr = tp+t1.Sub(t0), tr+time.Since(t1)
			}
			b.ReportMetric(float64(tp)/float64(tr), "plain-throughput-ratio")
		})
		b.Run(c.name+"/parallel", func(b *testing.B) {
			var tp, tr time.Duration
			ch := make(chan [2]time.Duration, 64)
			b.RunParallel(func(pb *testing.PB) {
				var p, r time.Duration
				for pb.Next() {
					t0 := time.Now()
					get(b, plain, url)
					t1 := time.Now()
					get(b, c.client, url)
					p, r = p+t1.Sub(t0), r+time.Since(t1)
				}
				ch <- [2]time.Duration{p, r}
			})
			close(ch)
			for d := range ch {
				tp, tr = tp+d[0], tr+d[1]
			}
			b.ReportMetric(float64(tp)/float64(tr), "plain-throughput-ratio")
		})
	}
}
