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
func benchClients(b *testing.B) (url string, plain, retrying *http.Client) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok")
	}))
	b.Cleanup(srv.Close)
	p, r := &http.Transport{MaxIdleConnsPerHost: 64}, &http.Transport{MaxIdleConnsPerHost: 64}
	b.Cleanup(p.CloseIdleConnections)
	b.Cleanup(r.CloseIdleConnections)
	return srv.URL, &http.Client{Transport: p}, &http.Client{Transport: &retryhttp.Transport{Base: r}}
}

func get(b *testing.B, c *http.Client, url string) {
	resp, err := c.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// BenchmarkGET compares a GET through the retrying Transport (the zero policy: records off)
// with the plain http.Transport, server included, serially and in parallel. The
// no-deadline variant removes the policy's Timeout, so attempts run with the caller's
// context: the difference is the cost of the per-attempt deadline context (SPEC R2.5).
func BenchmarkGET(b *testing.B) {
	url, plain, retrying := benchClients(b)
	nd := &http.Transport{MaxIdleConnsPerHost: 64}
	b.Cleanup(nd.CloseIdleConnections)
	noDeadline := &http.Client{Transport: &retryhttp.Transport{Base: nd, Policy: &retry.Policy{Timeout: retry.NoLimit}}}
	for _, c := range []struct {
		name   string
		client *http.Client
	}{{"plain", plain}, {"retryhttp", retrying}, {"retryhttp-no-deadline", noDeadline}} {
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

// BenchmarkGETInterleaved sends one request through each client in turn, so that both see
// the same machine noise, and reports plain-throughput-ratio: the retrying client's
// throughput as a share of the plain one's (1 means no cost). Times are per pair.
func BenchmarkGETInterleaved(b *testing.B) {
	url, plain, retrying := benchClients(b)
	b.Run("serial", func(b *testing.B) {
		var tp, tr time.Duration
		for b.Loop() {
			t0 := time.Now()
			get(b, plain, url)
			t1 := time.Now()
			get(b, retrying, url)
			tp, tr = tp+t1.Sub(t0), tr+time.Since(t1)
		}
		b.ReportMetric(float64(tp)/float64(tr), "plain-throughput-ratio")
	})
	b.Run("parallel", func(b *testing.B) {
		var tp, tr time.Duration
		ch := make(chan [2]time.Duration, 64)
		b.RunParallel(func(pb *testing.PB) {
			var p, r time.Duration
			for pb.Next() {
				t0 := time.Now()
				get(b, plain, url)
				t1 := time.Now()
				get(b, retrying, url)
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
