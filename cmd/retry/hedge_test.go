//go:build unix

package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// stall answers only when the client gives up on the request. It reads the body first:
// net/http's server sees a closed connection only once the body is read.
func stall(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
		io.WriteString(w, "too late\n")
	}
}

// TestHTTPHedge: --hedge sends a copy of a GET with no answer after the delay; its answer
// is the body, and the records say which attempt was a hedge and whether it won.
func TestHTTPHedge(t *testing.T) {
	srv, n := scripted(t, stall, respond(200, "fast\n"))
	start := time.Now()
	r := runBin(t, "", "http", "--hedge", "delay=50ms", "--log", "json", srv.URL+"/search")
	if r.code != 0 || r.stdout != "fast\n" || n.Load() != 2 || time.Since(start) > 5*time.Second {
		t.Fatalf("exit %d, stdout %q, %d requests after %v; stderr %s", r.code, r.stdout, n.Load(), time.Since(start), r.stderr)
	}
	recs := jsonRecords(t, r)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2: %s", len(recs), r.stderr)
	}
	if lost := recs[0]; lost["winner"] != false || lost["hedge"] != nil || lost["decision"] != nil {
		t.Errorf("first record %v: want the attempt, winner false, no decision", lost)
	}
	if won := recs[1]; won["winner"] != true || won["hedge"] != true || won["reason"] != "success" {
		t.Errorf("last record %v: want the hedge, the winner, success", won)
	}
}

// TestHTTPHedgeNotForWrites: a POST without --idempotency-key is never hedged; with one it
// is, with the same key and body.
func TestHTTPHedgeNotForWrites(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond) // the server's own slowness: the request under test waits for it
		respond(200, "slow\n")(w, r)
	}
	srv, n := scripted(t, slow)
	r := runBin(t, "", "http", "--hedge", "delay=20ms", "-d", "order=1", srv.URL+"/orders")
	if r.code != 0 || r.stdout != "slow\n" || n.Load() != 1 {
		t.Fatalf("POST without a key: exit %d, stdout %q, %d requests; want 1; stderr %s", r.code, r.stdout, n.Load(), r.stderr)
	}
	var keys, bodies []string
	srv2, n2 := scripted(t, stall, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		keys, bodies = append(keys, r.Header.Get("Idempotency-Key")), append(bodies, string(b))
		respond(200, "created\n")(w, r)
	})
	r = runBin(t, "", "http", "--hedge", "delay=20ms", "--idempotency-key", "k-26", "-d", "order=1", srv2.URL+"/orders")
	if r.code != 0 || r.stdout != "created\n" || n2.Load() != 2 {
		t.Fatalf("POST with a key: exit %d, stdout %q, %d requests; want 2; stderr %s", r.code, r.stdout, n2.Load(), r.stderr)
	}
	if strings.Join(keys, ",") != "k-26" || strings.Join(bodies, ",") != "order=1" {
		t.Errorf("the hedge carried key %q and body %q, want k-26 and order=1", keys, bodies)
	}
}

// TestHTTPHedgeBadSettings: a bad --hedge names the setting and what is allowed.
func TestHTTPHedgeBadSettings(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"", "retry http: --hedge is empty: want on, or KEY=VALUE,... (leave the flag out for none)"},
		{"delay=0s", "retry http: --hedge delay=0s: want a duration of at least 1ms such as 200ms"},
		{"hedges=5", "retry http: --hedge hedges=5: want a whole number from 1 to 4"},
		{"fast", `retry http: --hedge "fast": "fast" is not a setting: want on, or KEY=VALUE,... with KEY among delay, hedges`},
	} {
		code, _, stderr := runCLI(t, "http", "--hedge", c.value, "http://127.0.0.1:1/")
		if first, _, _ := strings.Cut(stderr, "\n"); code != 2 || first != c.want {
			t.Errorf("--hedge %q: exit %d, %q; want 2, %q", c.value, code, first, c.want)
		}
	}
}
