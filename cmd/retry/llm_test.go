//go:build unix

package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// retry http against servers that behave as the LLM APIs do (issue 22): their waits, their
// words, their overload refusal and their streams.

// eventStream answers 200 text/event-stream with events; with cut > 0 it closes the
// connection after cut of them, mid-stream.
func eventStream(cut int, events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for i, e := range events {
			if cut > 0 && i == cut {
				if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
					conn.Close()
				}
				return
			}
			fmt.Fprintf(w, "data: %s\n\n", e)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}
}

// arrivals records when each request arrived, around handlers as scripted gives them.
type arrivals struct {
	mu sync.Mutex
	at []time.Time
}

func (a *arrivals) wrap(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.at = append(a.at, time.Now())
		a.mu.Unlock()
		h(w, r)
	}
}

func (a *arrivals) gap(i int) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.at[i].Sub(a.at[i-1])
}

// Issue 22 item 6: a streamed generation that breaks is not sent again, key or no key.
func TestHTTPBrokenStreamOfAPOSTIsNotResent(t *testing.T) {
	events := []string{`{"delta":"Hel"}`, `{"delta":"lo"}`, `{"delta":"!"}`}
	t.Run("with --idempotency-key auto and -o: exit 4, FILE not created", func(t *testing.T) {
		srv, n := scripted(t, eventStream(2, events...), eventStream(0, events...))
		out := filepath.Join(t.TempDir(), "reply.txt")
		r := runBin(t, "", "http", "-X", "POST", "-d", `{"stream":true}`, "--idempotency-key", "auto", "-o", out, "--base", "1ms", srv.URL+"/v1/chat/completions")
		t.Logf("exit %d, %d requests; stderr %s", r.code, n.Load(), r.stderr)
		if r.code != 4 || n.Load() != 1 || !strings.Contains(r.stderr, "the server closed the connection before the whole response arrived; the event stream is not sent again") {
			t.Errorf("exit %d, %d requests; want exit 4 after 1", r.code, n.Load())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--output %s: %v; want it not created", out, err)
		}
	})
	t.Run("on stdout: the stream as far as it came, exit 4", func(t *testing.T) {
		srv, n := scripted(t, eventStream(2, events...), eventStream(0, events...))
		r := runBin(t, "", "http", "-X", "POST", "-d", `{"stream":true}`, "--quiet", srv.URL+"/v1/chat/completions")
		if r.code != 4 || n.Load() != 1 || r.stdout != "data: {\"delta\":\"Hel\"}\n\ndata: {\"delta\":\"lo\"}\n\n" {
			t.Errorf("exit %d, %d requests, stdout %q", r.code, n.Load(), r.stdout)
		}
	})
	t.Run("--resend-broken-stream with a key: resent, FILE whole", func(t *testing.T) {
		srv, n := scripted(t, eventStream(2, events...), eventStream(0, events...))
		out := filepath.Join(t.TempDir(), "reply.txt")
		r := runBin(t, "", "http", "-X", "POST", "-d", `{"stream":true}`, "--idempotency-key", "auto", "--resend-broken-stream",
			"-o", out, "--base", "1ms", "--quiet", srv.URL+"/v1/chat/completions")
		b, _ := os.ReadFile(out)
		if r.code != 0 || n.Load() != 2 || !strings.HasSuffix(string(b), "data: [DONE]\n\n") {
			t.Errorf("exit %d, %d requests, FILE %q; stderr %s", r.code, n.Load(), b, r.stderr)
		}
	})
	t.Run("a GET's stream is resent", func(t *testing.T) {
		srv, n := scripted(t, eventStream(2, events...), eventStream(0, events...))
		out := filepath.Join(t.TempDir(), "feed.txt")
		r := runBin(t, "", "http", "-o", out, "--base", "1ms", "--quiet", srv.URL+"/feed")
		if r.code != 0 || n.Load() != 2 {
			t.Errorf("exit %d, %d requests; stderr %s", r.code, n.Load(), r.stderr)
		}
	})
}

// Issue 22 items 1-3: retry-after-ms is a server wait, x-should-retry is obeyed, and a
// POST's 529 is retried as a refusal.
func TestHTTPLLMConventions(t *testing.T) {
	t.Run("429 retry-after-ms 300: waited, named in the record", func(t *testing.T) {
		var a arrivals
		srv, n := scripted(t, a.wrap(respond(429, "slow down", "Retry-After-Ms", "300")), a.wrap(respond(200, "ok")))
		// --max-wait 400ms leaves room for at most 100 ms of the spread: the wait is 300-400 ms.
		r := runBin(t, "", "http", "-X", "POST", "-d", "{}", "--max-wait", "400ms", "--log", "json", srv.URL+"/v1/chat/completions")
		recs := jsonRecords(t, r)
		t.Logf("exit %d, %d requests, waited %v; records %s", r.code, n.Load(), a.gap(1), reasons(recs))
		if r.code != 0 || n.Load() != 2 || a.gap(1) < 300*time.Millisecond {
			t.Errorf("exit %d, %d requests, waited %v", r.code, n.Load(), a.gap(1))
		}
		if recs[0]["retry_after_ms"] != 300.0 || recs[0]["retry_after_from"] != "retry-after-ms" || recs[0]["reason"] != "retry_after" {
			t.Errorf("first record %v", recs[0])
		}
	})
	t.Run("retry-after-ms 20000 under --timeout 3s: exit 3 at once", func(t *testing.T) {
		srv, n := scripted(t, respond(429, "slow down", "Retry-After-Ms", "20000"))
		r := runBin(t, "", "http", "-X", "POST", "-d", "{}", "--timeout", "3s", "--log", "json", srv.URL+"/v1/chat/completions")
		recs := jsonRecords(t, r)
		if r.code != 3 || n.Load() != 1 || r.stdout != "slow down" || recs[0]["reason"] != "retry_after_exceeds_deadline" ||
			r.elapsed > 2*time.Second {
			t.Errorf("exit %d, %d requests, stdout %q, after %v; records %v", r.code, n.Load(), r.stdout, r.elapsed, recs)
		}
	})
	t.Run("a POST's 529 is retried", func(t *testing.T) {
		srv, n := scripted(t, respond(529, `{"type":"error","error":{"type":"overloaded_error"}}`), respond(200, "ok"))
		r := runBin(t, "", "http", "-X", "POST", "-d", "{}", "--base", "1ms", "--quiet", srv.URL+"/v1/messages")
		if r.code != 0 || n.Load() != 2 || r.stdout != "ok" {
			t.Errorf("exit %d, %d requests, stdout %q", r.code, n.Load(), r.stdout)
		}
	})
	t.Run("x-should-retry: false stops at once", func(t *testing.T) {
		srv, n := scripted(t, respond(503, "no", "X-Should-Retry", "false"))
		r := runBin(t, "", "http", "--base", "1ms", "--quiet", srv.URL+"/v1/models")
		if r.code != 1 || n.Load() != 1 || r.stdout != "no" {
			t.Errorf("exit %d, %d requests, stdout %q", r.code, n.Load(), r.stdout)
		}
	})
	t.Run("x-should-retry: true retries a POST's 500", func(t *testing.T) {
		srv, n := scripted(t, respond(500, "oops", "X-Should-Retry", "true"), respond(200, "ok"))
		r := runBin(t, "", "http", "-X", "POST", "-d", "{}", "--base", "1ms", "--quiet", srv.URL+"/v1/chat/completions")
		if r.code != 0 || n.Load() != 2 {
			t.Errorf("exit %d, %d requests", r.code, n.Load())
		}
	})
}
