package retryhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/retryhttp"
)

// The default retry budget through the Transport (issue 21 item 1): one per destination,
// an attempt that never reached the server costs nothing, NoBudget turns it off.

// nthStatusServer is a real server on 127.0.0.1 answering request n (from 1) with
// status(n).
func nthStatusServer(t *testing.T, status func(n int64) int) string {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(status(n.Add(1)))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// hostCount is what the calls to one host ended with.
type hostCount struct {
	calls, retries, refused atomic.Int64
}

// Two hosts (aws-sdk-go-v2#1665: one quota per client, shared across hosts, throttled the
// healthy ones): one client, 256 goroutines, 8 calls each to a sick host (503 every time)
// and 8 to a healthy one (503 for one request in ten). The sick host's budget runs dry and
// refuses its retries; no retry of a call to the healthy host is refused. With one budget
// for both hosts, as the AWS SDK has, the healthy host's retries are refused too.
func TestDefaultBudgetPerDestination(t *testing.T) {
	sick, _ := statusServer(t, http.StatusServiceUnavailable, nil)
	healthy := nthStatusServer(t, func(n int64) int {
		if n%10 == 0 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	run := func(shared retry.RetryBudget) (sickCount, healthyCount *hostCount) {
		sickCount, healthyCount = new(hostCount), new(hostCount)
		p := fast(t, 3)
		p.Budget = shared // nil: the Transport's default, one per destination
		p.OnDecision = func(_ context.Context, d retry.Decision) {
			c := healthyCount
			if strings.HasPrefix(attr(d, "url"), sick) {
				c = sickCount
			}
			switch {
			case d.Retry:
				c.retries.Add(1)
			case d.Reason == retry.ReasonRetryBudgetExhausted:
				c.refused.Add(1)
			}
		}
		base := &http.Transport{MaxIdleConnsPerHost: 256}
		t.Cleanup(base.CloseIdleConnections)
		c := &http.Client{Transport: &retryhttp.Transport{Base: base, Policy: p}}
		var wg sync.WaitGroup
		for range 256 {
			wg.Go(func() {
				for i := range 16 {
					srv, count := healthy, healthyCount
					if i%2 == 0 {
						srv, count = sick, sickCount
					}
					count.calls.Add(1)
					resp, err := c.Get(srv)
					if err == nil {
						resp.Body.Close()
					} else if rerr := (*retryhttp.ResponseError)(nil); errors.As(err, &rerr) {
						rerr.Response.Body.Close()
					}
				}
			})
		}
		wg.Wait()
		return sickCount, healthyCount
	}
	s, h := run(nil)
	t.Logf("default budget, one per host: sick host %d calls, %d retries, %d refused; healthy host %d calls, %d retries, %d refused",
		s.calls.Load(), s.retries.Load(), s.refused.Load(), h.calls.Load(), h.retries.Load(), h.refused.Load())
	if h.refused.Load() != 0 || h.retries.Load() == 0 {
		t.Errorf("healthy host: %d retries, %d refused; want retries and none refused", h.retries.Load(), h.refused.Load())
	}
	if s.refused.Load() == 0 {
		t.Errorf("sick host: %d retries, none refused; want its budget to run dry", s.retries.Load())
	}
	one, err := budget.NewQuota(budget.QuotaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s, h = run(one)
	t.Logf("one budget for both hosts: sick host %d calls, %d retries, %d refused; healthy host %d calls, %d retries, %d refused",
		s.calls.Load(), s.retries.Load(), s.refused.Load(), h.calls.Load(), h.retries.Load(), h.refused.Load())
	if h.refused.Load() == 0 {
		t.Errorf("one budget for both: no healthy retry refused; the comparison shows nothing")
	}
}

// recordingBudget counts what a loop asks and tells it, and allows every retry.
type recordingBudget struct {
	asked, told atomic.Int64
}

func (b *recordingBudget) AllowRetry() bool        { b.asked.Add(1); return true }
func (b *recordingBudget) Done(bool, retry.Result) { b.told.Add(1) }

// An attempt that never reached the server costs nothing: the budget is neither told of it
// nor asked about the retry after it, for a refused dial (a GET, whose call is not traced,
// and a POST), a proxy's 503 to CONNECT and an HTTP/2 GOAWAY past the request's stream. With
// the default budget, 40 GETs to a port nobody listens on each make their 3 attempts.
func TestNeverReachedCostsNothing(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // every dial is refused
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		b := new(recordingBudget)
		p := fast(t, 3)
		p.Budget = b
		_, err := client(t, &retryhttp.Transport{Policy: p}).Do(request(t, method, closed.URL, map[string]string{"POST": "x"}[method]))
		if stop := stopOf(t, err); stop.Reason != retry.ReasonAttemptsExhausted || stop.Attempts != 3 || b.asked.Load() != 0 || b.told.Load() != 0 {
			t.Errorf("refused dial, %s: %v; budget asked %d, told %d; want 3 attempts, asked and told nothing", method, err, b.asked.Load(), b.told.Load())
		}
	}

	origin := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer origin.Close()
	proxy, connects := connectProxy(t, origin.Listener.Addr().String(), http.StatusServiceUnavailable)
	base := origin.Client().Transport.(*http.Transport).Clone()
	base.Proxy = http.ProxyURL(proxy)
	base.TLSClientConfig.ServerName = "example.com"
	base.OnProxyConnectResponse = retryhttp.CheckProxyConnect
	defer base.CloseIdleConnections()
	b := new(recordingBudget)
	p := fast(t, 3)
	p.Budget = b
	_, err := (&retryhttp.Transport{Base: base, Policy: p}).RoundTrip(request(t, http.MethodGet, "https://origin.test/", ""))
	if stop := stopOf(t, err); stop.Attempts != 3 || connects.Load() != 3 || b.asked.Load() != 0 || b.told.Load() != 0 {
		t.Errorf("proxy 503 to CONNECT: %v, %d CONNECTs; budget asked %d, told %d; want 3, asked and told nothing", err, connects.Load(), b.asked.Load(), b.told.Load())
	}

	h2, _, scheme := h2Base(t, false)
	srv := newH2Server(t, nil, h2GoAwayError, h2OK)
	b = new(recordingBudget)
	p = fast(t, 3)
	p.Budget = b
	resp, err := (&retryhttp.Transport{Base: h2, Policy: p}).RoundTrip(request(t, http.MethodPost, scheme+"://"+srv.ln.Addr().String()+"/", "order"))
	if err != nil || b.asked.Load() != 0 || b.told.Load() != 1 {
		t.Errorf("GOAWAY past the stream, then 200: %v; budget asked %d, told %d; want success, asked nothing, told of the success", err, b.asked.Load(), b.told.Load())
	} else {
		readAll(t, resp)
	}

	tr := &retryhttp.Transport{Policy: fast(t, 3)}
	c := client(t, tr)
	for i := range 40 {
		_, err := c.Get(closed.URL)
		if stop := stopOf(t, err); stop.Reason != retry.ReasonAttemptsExhausted || stop.Attempts != 3 {
			t.Fatalf("GET %d to a refused port: %v; want 3 attempts, attempts_exhausted (never charged)", i, err)
		}
	}
}

// Without a budget of the policy's, each Transport value has the default budget of each
// destination: 20 retries to a host that answers 503, then its requests are refused their
// retries; another Transport's budget for the same host is its own. NoBudget turns it off.
func TestDefaultBudgetOfEachTransport(t *testing.T) {
	down, _ := statusServer(t, http.StatusServiceUnavailable, nil)
	attempts := func(tr *retryhttp.Transport) []int {
		var n []int
		c := client(t, tr)
		for range 12 {
			_, err := c.Get(down)
			n = append(n, stopOf(t, err).Attempts)
		}
		return n
	}
	want := []int{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1}
	if got := attempts(&retryhttp.Transport{Policy: fast(t, 3)}); !equal(got, want) {
		t.Errorf("default budget: attempts %v, want %v", got, want)
	}
	if got := attempts(&retryhttp.Transport{Policy: fast(t, 3)}); !equal(got, want) {
		t.Errorf("another Transport: attempts %v, want %v (a budget of its own)", got, want)
	}
	off := fast(t, 3)
	off.Budget = retry.NoBudget
	if got := attempts(&retryhttp.Transport{Policy: off}); !equal(got, []int{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}) {
		t.Errorf("NoBudget: attempts %v, want 3 every time", got)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
