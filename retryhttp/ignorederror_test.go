package retryhttp_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/retrykit/retry/retryhttp"
)

// A stop that carries a response holds nothing once its body is read ahead: Go code ignores
// the error of http.Client (net/http: "on error, any Response can be ignored"), and 50 such
// calls in a row against an always-503 server reuse one connection, where each used to hold
// its own until the policy's Timeout (50 connections, 100 goroutines). A body longer than
// 64 KiB still reads on from the connection, whole.
func TestIgnoredStopHoldsNoConnection(t *testing.T) {
	var conns atomic.Int64
	long := strings.Repeat("x", 100<<10)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		if r.URL.Path == "/long" {
			io.WriteString(w, long)
			return
		}
		io.WriteString(w, "overloaded\n")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := client(t, &retryhttp.Transport{Policy: fast(t, 2)})
	for range 50 {
		if _, err := c.Get(srv.URL); err == nil {
			t.Fatal("a 503 every time, and no error")
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("50 ignored stops used %d connections, want 1", n)
	}

	_, err := c.Get(srv.URL + "/long")
	var rerr *retryhttp.ResponseError
	if !errors.As(err, &rerr) {
		t.Fatalf("err = %v, want a *ResponseError", err)
	}
	body, rerrRead := io.ReadAll(rerr.Response.Body)
	rerr.Response.Body.Close()
	if rerrRead != nil || string(body) != long {
		t.Errorf("a long stop body read %d bytes (%v), want all %d", len(body), rerrRead, len(long))
	}
}
