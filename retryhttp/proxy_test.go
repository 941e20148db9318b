package retryhttp_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// connectProxy is a real CONNECT proxy on 127.0.0.1: it answers the CONNECTs it receives
// with statuses[min(n, len-1)] and, for 200, opens the tunnel to target whatever host was
// asked for (so that a test's made-up origin name never leaves the machine).
func connectProxy(t *testing.T, target string, statuses ...int) (*url.URL, *atomic.Int64) {
	var connects atomic.Int64
	var tunnels sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		status := statuses[min(int(connects.Add(1))-1, len(statuses)-1)]
		if status != http.StatusOK {
			if status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "0")
			}
			w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
			w.WriteHeader(status)
			return
		}
		upstream, err := net.Dial("tcp", target)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			upstream.Close()
			return
		}
		tunnels.Add(2)
		go func() { defer tunnels.Done(); io.Copy(upstream, buf); upstream.Close() }()
		go func() { defer tunnels.Done(); io.Copy(conn, upstream); conn.Close() }()
	}))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); tunnels.Wait() })
	u, _ := url.Parse(srv.URL)
	return u, &connects
}

// A proxy's CONNECT status is classified like any status (issue 12 item 2): 407, 403 and
// other 4xx stop at once after 1 CONNECT with non_retryable_error; 429 and 5xx are
// retried, for a POST too, since the request never reached the origin.
func TestProxyConnectStatus(t *testing.T) {
	origin := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, r.Method+" "+string(b))
	}))
	defer origin.Close()
	for _, tc := range []struct {
		name         string
		method       string
		statuses     []int
		wantConnects int64
		wantReason   retry.Reason
		wantBody     string
	}{
		{"407", "GET", []int{407}, 1, retry.ReasonNonRetryableError, ""},
		{"403", "GET", []int{403}, 1, retry.ReasonNonRetryableError, ""},
		{"400", "GET", []int{400}, 1, retry.ReasonNonRetryableError, ""},
		{"503 then tunnel", "GET", []int{503, 200}, 2, retry.ReasonSuccess, "GET "},
		{"429, 502 then tunnel, a POST", "POST", []int{429, 502, 200}, 3, retry.ReasonSuccess, "POST order"},
		{"503 every time", "GET", []int{503}, 3, retry.ReasonAttemptsExhausted, ""},
		{"204 is no tunnel", "GET", []int{204}, 1, retry.ReasonNonRetryableError, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy, connects := connectProxy(t, origin.Listener.Addr().String(), tc.statuses...)
			base := origin.Client().Transport.(*http.Transport).Clone()
			base.Proxy = http.ProxyURL(proxy)
			base.TLSClientConfig.ServerName = "example.com" // the test certificate's name; origin.test is never resolved
			base.OnProxyConnectResponse = retryhttp.CheckProxyConnect
			defer base.CloseIdleConnections()
			var records []retry.Decision
			p := fast(t, 3)
			p.OnDecision = func(_ context.Context, d retry.Decision) { records = append(records, d) }
			req := request(t, tc.method, "https://origin.test/orders", map[string]string{"POST": "order"}[tc.method])
			resp, err := (&retryhttp.Transport{Base: base, Policy: p}).RoundTrip(req)
			last := records[len(records)-1]
			if connects.Load() != tc.wantConnects || last.Reason != tc.wantReason {
				t.Fatalf("%d CONNECTs, stop %s (%v); want %d, %s", connects.Load(), last.Reason, err, tc.wantConnects, tc.wantReason)
			}
			if tc.wantReason == retry.ReasonSuccess {
				if got := readAll(t, resp); got != tc.wantBody {
					t.Errorf("body %q, want %q", got, tc.wantBody)
				}
				return
			}
			var refusal *retryhttp.ProxyConnectError
			if stopOf(t, err).Reason != tc.wantReason || !errors.As(err, &refusal) || refusal.Status != tc.statuses[0] ||
				!strings.Contains(err.Error(), "answered CONNECT with "+strconv.Itoa(tc.statuses[0])) {
				t.Errorf("err %v", err)
			}
		})
	}
}
