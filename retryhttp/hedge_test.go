package retryhttp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/hedge"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// hedges returns a hedge group with a fixed delay and no hedge budget, so that tests say
// exactly when a hedge goes.
func hedges(t testing.TB, delay time.Duration) *hedge.Group {
	t.Helper()
	g, err := hedge.NewGroup(hedge.GroupConfig{Hedge: hedge.Config{Delay: delay, Budget: retry.None}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// records keeps the decisions of a policy's loops.
type records struct {
	mu sync.Mutex
	ds []retry.Decision
}

func (r *records) observe(_ context.Context, d retry.Decision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ds = append(r.ds, d)
}

// slowThenFast answers the first request after a long delay and every later one at once.
var slowThenFast = retrytest.Script{Steps: []retrytest.Step{{Body: "slow", Delay: 5 * time.Second}, {Body: "fast", Delay: 10 * time.Millisecond}}}

// TestHedgeGET: a slow GET is hedged after the delay; the hedge's answer comes back, the
// first attempt is canceled, and the records say which won.
func TestHedgeGET(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, slowThenFast)
		var rec records
		p := constant(t, 0, 3, 10*time.Second)
		p.OnDecision = rec.observe
		tr := &retryhttp.Transport{Base: rt, Policy: p, Hedges: hedges(t, 100*time.Millisecond)}
		start := time.Now()
		resp, err := tr.RoundTrip(request(t, "GET", "http://api.test/item", ""))
		if err != nil || time.Since(start) != 110*time.Millisecond {
			t.Fatalf("RoundTrip: %v after %v; want the hedge's answer after 110ms", err, time.Since(start))
		}
		if body := readAll(t, resp); body != "fast" {
			t.Errorf("body %q, want the hedge's", body)
		}
		if n := rt.Requests(); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
		if open, _ := rt.Bodies(); open != 0 {
			t.Errorf("%d response bodies left open", open)
		}
		if len(rec.ds) != 2 {
			t.Fatalf("%d records, want 2", len(rec.ds))
		}
		lost, won := rec.ds[0], rec.ds[1]
		if !lost.Lost || lost.Hedge || attr(lost, "method") != "GET" || !errors.Is(lost.Err, context.Canceled) {
			t.Errorf("first record %+v: want attempt 1, lost, canceled, labelled", lost)
		}
		if !won.Hedge || !won.Winner || won.Reason != retry.ReasonSuccess || attr(won, "url") != "http://api.test/item" {
			t.Errorf("last record %+v: want the hedge, the winner, success", won)
		}
	})
}

// TestHedgeNotForWrites: a POST without an idempotency key is never hedged, however slow;
// nor is a request whose body cannot be sent twice.
func TestHedgeNotForWrites(t *testing.T) {
	for _, c := range []struct {
		name   string
		method string
		unbuf  bool
	}{
		{"POST without a key", "POST", false},
		{"PATCH without a key", "PATCH", false},
		{"PUT with a body sent once", "PUT", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := scripted(t, slowThenFast)
				tr := &retryhttp.Transport{Base: rt, Policy: constant(t, 0, 3, 10*time.Second), Hedges: hedges(t, 100*time.Millisecond)}
				req := request(t, c.method, "http://api.test/orders", "")
				req.Body = io.NopCloser(bytes.NewReader([]byte("order")))
				if c.unbuf {
					tr.MaxBufferedBody = -1
				}
				resp, err := tr.RoundTrip(req)
				if err != nil || readAll(t, resp) != "slow" {
					t.Fatalf("RoundTrip: %v", err)
				}
				if n := rt.Requests(); n != 1 {
					t.Errorf("%d requests, want 1: 0 hedges", n)
				}
			})
		})
	}
}

// TestHedgeBodyIdentical: the hedge of a keyed POST carries the same key and the same body,
// byte for byte, whether the body comes from GetBody or from the buffer of a streamed one.
func TestHedgeBodyIdentical(t *testing.T) {
	payload := make([]byte, 300<<10)
	r := rand.New(rand.NewPCG(26, 26))
	for i := range payload {
		payload[i] = byte(r.Uint32())
	}
	for _, c := range []struct {
		name string
		body func() io.Reader
	}{
		{"GetBody", func() io.Reader { return bytes.NewReader(payload) }}, // http.NewRequest sets GetBody
		{"buffered", func() io.Reader { return io.MultiReader(bytes.NewReader(payload)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := scripted(t, slowThenFast)
				tr := &retryhttp.Transport{Base: rt, Policy: constant(t, 0, 3, 10*time.Second), Hedges: hedges(t, 100*time.Millisecond),
					AutoIdempotencyKey: true}
				req, err := http.NewRequest("POST", "http://api.test/orders", c.body())
				if err != nil {
					t.Fatal(err)
				}
				resp, err := tr.RoundTrip(req)
				if err != nil || readAll(t, resp) != "fast" {
					t.Fatalf("RoundTrip: %v", err)
				}
				got := rt.Received()
				if len(got) != 2 {
					t.Fatalf("%d requests, want the attempt and its hedge", len(got))
				}
				for i, g := range got {
					if !bytes.Equal(g.Body, payload) {
						t.Errorf("request %d: body of %d bytes differs from the %d sent", i, len(g.Body), len(payload))
					}
				}
				if k0, k1 := got[0].Header.Get("Idempotency-Key"), got[1].Header.Get("Idempotency-Key"); k0 == "" || k0 != k1 {
					t.Errorf("keys %q and %q, want one key on both", k0, k1)
				}
			})
		})
	}
}

// TestHedgeLoserBodyClosed: an attempt that fails while its hedge is in flight has its
// response body drained and closed; the hedge's answer is used.
func TestHedgeLoserBodyClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{
			{Status: 503, Body: "busy", Delay: 150 * time.Millisecond},
			{Body: "fast", Delay: 100 * time.Millisecond}}})
		tr := &retryhttp.Transport{Base: rt, Policy: constant(t, 0, 3, 10*time.Second), Hedges: hedges(t, 100*time.Millisecond)}
		resp, err := tr.RoundTrip(request(t, "GET", "http://api.test/", ""))
		if err != nil {
			t.Fatal(err)
		}
		if open, drained := rt.Bodies(); open != 1 || drained != 1 {
			t.Errorf("before the caller closes its body: %d open, %d drained; want 1 (the caller's), 1 (the 503's)", open, drained)
		}
		if body := readAll(t, resp); body != "fast" {
			t.Errorf("body %q, want the hedge's", body)
		}
		if open, _ := rt.Bodies(); open != 0 {
			t.Errorf("%d bodies open", open)
		}
	})
}

// TestHedgeNeverPastDeadline: a hedge the deadline leaves no time for is refused, and the
// request ends at its deadline, not later.
func TestHedgeNeverPastDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, slowThenFast)
		var rec records
		p := constant(t, 0, 3, 150*time.Millisecond)
		p.OnDecision = rec.observe
		tr := &retryhttp.Transport{Base: rt, Policy: p, Hedges: hedges(t, 100*time.Millisecond)}
		start := time.Now()
		_, err := tr.RoundTrip(request(t, "GET", "http://api.test/", ""))
		if !errors.Is(err, retry.ErrDeadlineExceeded) || time.Since(start) != 150*time.Millisecond || rt.Requests() != 1 {
			t.Fatalf("RoundTrip: %v after %v and %d requests; want deadline_exceeded at 150ms, no hedge", err, time.Since(start), rt.Requests())
		}
		if len(rec.ds) != 1 || rec.ds[0].HedgeRefused != retry.HedgeRefusedDeadline {
			t.Errorf("records %+v, want one that says the hedge was refused for the deadline", rec.ds)
		}
	})
}

// TestHedgeRealServer: against a real server, the hedge goes on a connection of its own,
// the first attempt's request is canceled, and the call returns at once.
func TestHedgeRealServer(t *testing.T) {
	srv := server(t, retrytest.Script{Steps: []retrytest.Step{{Body: "slow", Delay: 10 * time.Second}, {Body: "fast"}}})
	c := client(t, &retryhttp.Transport{Policy: fast(t, 3), Hedges: hedges(t, 20*time.Millisecond)})
	start := time.Now()
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, resp); body != "fast" || time.Since(start) > 5*time.Second {
		t.Fatalf("body %q after %v, want the hedge's at once", body, time.Since(start))
	}
	if srv.Requests() != 2 || srv.Connections() != 2 {
		t.Errorf("%d requests on %d connections; want 2 on 2", srv.Requests(), srv.Connections())
	}
}
