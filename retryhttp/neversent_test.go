package retryhttp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

// countingServer is a real HTTP server on 127.0.0.1 that counts the requests reaching it
// and answers 200.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var arrivals atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrivals.Add(1)
	}))
	t.Cleanup(srv.Close)
	return srv, &arrivals
}

// Issue 16 item 1: a request net/http refuses to send (an invalid header name or value,
// method, trailer, a control byte in the URL, no header map) never left the client:
// the same request is refused every time, so it takes 1 attempt and stops with
// non_retryable_error, for every method, a write included (never unknown_outcome), and the
// server sees nothing.
func TestRequestsNetHTTPRefusesAreNeverSent(t *testing.T) {
	faults := []struct {
		name  string
		spoil func(r *http.Request)
	}{
		{"header name with ESC", func(r *http.Request) { r.Header["X-Bad-\x1b"] = []string{"v"} }},
		{"header value with ESC", func(r *http.Request) { r.Header.Set("X-Value", "bad \x1b value") }},
		{"header value with LF", func(r *http.Request) { r.Header["X-Value"] = []string{"a\nb"} }},
		{"header name with a space", func(r *http.Request) { r.Header["Bad Name"] = []string{"v"} }},
		{"trailer name with ESC", func(r *http.Request) { r.Trailer = http.Header{"X-Trailer-\x1b": nil} }},
		{"control byte in the URL", func(r *http.Request) { r.URL.Opaque = "/a\x7fb" }},
		{"no header map", func(r *http.Request) { r.Header = nil }},
	}
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodPost, http.MethodPatch}
	for _, f := range faults {
		for _, method := range methods {
			t.Run(f.name+"/"+method, func(t *testing.T) {
				checkRefused(t, method, f.spoil)
			})
		}
	}
	t.Run("method BAD METHOD", func(t *testing.T) { checkRefused(t, "BAD METHOD", func(*http.Request) {}) })
	for _, method := range methods {
		// The dialer cannot read the address: found before any connection, every time.
		t.Run("port out of range/"+method, func(t *testing.T) {
			checkRefused(t, method, func(r *http.Request) { r.URL.Host = "127.0.0.1:99999" })
		})
	}
}

func checkRefused(t *testing.T, method string, spoil func(*http.Request)) {
	srv, arrivals := countingServer(t)
	var decisions []retry.Decision
	p := fast(t, 3)
	p.OnDecision = func(_ context.Context, d retry.Decision) { decisions = append(decisions, d) }
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/items", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	req.Method = method
	spoil(req)
	// The Transport itself, not an http.Client, which would give a nil Header a map.
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	resp, err := (&retryhttp.Transport{Base: base, Policy: p}).RoundTrip(req)
	if resp != nil {
		resp.Body.Close()
		t.Fatalf("a response: %v", resp.Status)
	}
	stop := stopOf(t, err)
	if stop.Reason != retry.ReasonNonRetryableError || stop.Attempts != 1 {
		t.Errorf("stop = %v; want non_retryable_error after 1 attempt", stop)
	}
	if len(decisions) != 1 || decisions[0].Reason != retry.ReasonNonRetryableError {
		t.Errorf("decisions %+v; want one, non_retryable_error", decisions)
	}
	if n := arrivals.Load(); n != 0 {
		t.Errorf("the server saw %d requests; want 0", n)
	}
}

// The same faults with a base RoundTripper that wraps http.Transport, as instrumentation
// does: the refusal is still known for what it is.
func TestRefusedThroughAWrappingRoundTripper(t *testing.T) {
	srv, arrivals := countingServer(t)
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	wrapped := roundTripFunc(func(r *http.Request) (*http.Response, error) { return base.RoundTrip(r) })
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("x"))
	req.Header.Set("X-Value", "bad \x1b value")
	_, err := (&http.Client{Transport: &retryhttp.Transport{Base: wrapped, Policy: fast(t, 3)}}).Do(req)
	if stop := stopOf(t, err); stop.Reason != retry.ReasonNonRetryableError || stop.Attempts != 1 || arrivals.Load() != 0 {
		t.Errorf("stop = %v after %d arrivals; want non_retryable_error, 1 attempt, 0 arrivals", stop, arrivals.Load())
	}
}

// net/http's HTTP/1 transport finds a control byte in the URL only as it writes the request,
// then closes the connection, and its RoundTrip returns either the refusal or, at random, the
// read error of the connection it closed. The refusal it reported to WroteRequest decides:
// a base that returns the teardown error stops after 1 attempt, non_retryable_error, with the
// refusal as the cause, for a GET and a POST.
func TestRefusalReportedToWroteRequestDecides(t *testing.T) {
	refusal := errors.New("net/http: can't write control character in Request.URL")
	teardown := &net.OpError{Op: "read", Net: "tcp", Err: net.ErrClosed}
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		trace := httptrace.ContextClientTrace(r.Context())
		trace.GetConn("127.0.0.1:80")
		trace.WroteRequest(httptrace.WroteRequestInfo{Err: refusal})
		return nil, teardown
	})
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		var decisions []retry.Decision
		p := fast(t, 3)
		p.OnDecision = func(_ context.Context, d retry.Decision) { decisions = append(decisions, d) }
		req, _ := http.NewRequest(method, "http://127.0.0.1/items", strings.NewReader("x"))
		_, err := (&retryhttp.Transport{Base: base, Policy: p}).RoundTrip(req)
		stop := stopOf(t, err)
		if stop.Reason != retry.ReasonNonRetryableError || stop.Attempts != 1 || !errors.Is(err, refusal) ||
			len(decisions) != 1 || decisions[0].Err != refusal {
			t.Errorf("%s: stop = %v, decisions %+v; want non_retryable_error after 1 attempt, caused by the refusal",
				method, stop, decisions)
		}
	}
}

// A POST whose dial is refused is still "not sent" and retried, and one that reached the
// server and got a reset is still an unknown outcome: the refusal rule does not widen.
func TestRefusalRuleKeepsSentAndNotSentApart(t *testing.T) {
	srv, arrivals := countingServer(t)
	u, _ := url.Parse(srv.URL)
	srv.Close() // nothing listens any more: every dial is refused
	_, err := client(t, &retryhttp.Transport{Policy: fast(t, 3)}).Post(u.String(), "text/plain", strings.NewReader("x"))
	if stop := stopOf(t, err); stop.Reason != retry.ReasonAttemptsExhausted || stop.Attempts != 3 || arrivals.Load() != 0 {
		t.Errorf("refused dial: stop = %v; want attempts_exhausted after 3 attempts", stop)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
