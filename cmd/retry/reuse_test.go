//go:build unix

package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// countingServer is scripted's server that also counts the connections it accepts.
func countingServer(t *testing.T, handlers ...http.HandlerFunc) (requests, conns *atomic.Int64, url string) {
	requests, conns = new(atomic.Int64), new(atomic.Int64)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers[min(int(requests.Add(1))-1, len(handlers)-1)](w, r)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return requests, conns, srv.URL
}

// TestHTTPAttemptsReuseTheConnection: attempts reuse the kept-alive connection (issue 12
// item 6). When net/http sends a request again by itself, on a new connection, because the
// reused one died after the request was written, that attempt's record says
// transport_resends 1, and the server's requests are the attempts plus the re-sends.
func TestHTTPAttemptsReuseTheConnection(t *testing.T) {
	requests, conns, url := countingServer(t, respond(503, "busy"), respond(503, "busy"), respond(200, "ok"))
	r := runBin(t, "", "http", "--base", "1ms", "--log", "json", url)
	if got := reasons(jsonRecords(t, r)); r.code != 0 || r.stdout != "ok" || requests.Load() != 3 || conns.Load() != 1 ||
		got != "retry:retryable_status retry:retryable_status stop:success" {
		t.Fatalf("exit %d, stdout %q: %d requests on %d connections, records %s; want 0, ok, 3 on 1", r.code, r.stdout,
			requests.Load(), conns.Load(), got)
	}

	requests, conns, url = countingServer(t, respond(503, "busy"), drop, respond(200, "ok"))
	r = runBin(t, "", "http", "--base", "1ms", "--log", "json", url)
	recs := jsonRecords(t, r)
	if r.code != 0 || r.stdout != "ok" || requests.Load() != 3 || conns.Load() != 2 || len(recs) != 2 ||
		recs[0]["transport_resends"] != nil || recs[1]["transport_resends"] != 1.0 || recs[1]["reason"] != "success" {
		t.Errorf("exit %d, stdout %q: %d requests on %d connections; records %v; want 0, ok, 3 on 2, the second record with transport_resends 1",
			r.code, r.stdout, requests.Load(), conns.Load(), recs)
	}
	_, _, url = countingServer(t, respond(503, "busy"), drop, respond(200, "ok"))
	r = runBin(t, "", "http", "--base", "1ms", url)
	if lines := r.lines(); r.code != 0 || len(lines) != 2 || !strings.Contains(lines[1], "decision=stop reason=success") || !strings.HasSuffix(lines[1], "outcome=success transport_resends=1") {
		t.Errorf("exit %d, text records:\n%s", r.code, r.stderr)
	}
}
