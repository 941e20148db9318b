package retryhttp_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

type connRequestsKey struct{}

// droppingServer counts the requests it receives (arrivals) and drops the connection,
// without an answer, on every request number drop of each connection (1 for the first),
// after reading the request: every exchange the client sends reaches it.
func droppingServer(t *testing.T, drop func(n int64) bool) (*httptest.Server, *atomic.Int64) {
	arrivals := new(atomic.Int64)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrivals.Add(1)
		if n := r.Context().Value(connRequestsKey{}).(*atomic.Int64).Add(1); drop(n) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		io.WriteString(w, "ok")
	}))
	srv.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connRequestsKey{}, new(atomic.Int64))
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, arrivals
}

// With keep-alive, net/http sends a GET again by itself when its reused connection dies
// after the request was written. Each such re-send is in its attempt's record as
// transport_resends and in the metrics (issue 12 item 6, issue 15 item 3): the server's
// arrivals are exactly attempts + re-sends.
func TestTransportResendsRecorded(t *testing.T) {
	// Each connection answers its first request and drops its second: request 1 opens a
	// connection; every later request reuses it, is dropped, and is re-sent on a new one.
	srv, arrivals := droppingServer(t, func(n int64) bool { return n == 2 })
	m := new(retry.Metrics)
	var mu sync.Mutex
	var records []retry.Decision
	p := fast(t, 3)
	p.OnDecision = retry.Observers(m.Observe, func(_ context.Context, d retry.Decision) { mu.Lock(); records = append(records, d); mu.Unlock() })
	c := client(t, &retryhttp.Transport{Policy: p})
	for range 5 {
		resp, err := c.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, resp); got != "ok" {
			t.Fatalf("body %q", got)
		}
	}
	resends := 0
	for i, d := range records {
		resends += d.TransportResends
		if want := min(i, 1); d.TransportResends != want || d.Reason != retry.ReasonSuccess {
			t.Errorf("record %d: transport_resends %d, reason %s; want %d, success", i+1, d.TransportResends, d.Reason, want)
		}
	}
	s := m.Snapshot()
	if arrivals.Load() != 9 || s.Attempts != 5 || s.TransportResends != 4 || resends != 4 {
		t.Errorf("server arrivals %d; metrics: %d attempts + %d re-sends; records: %d re-sends; want 9 = 5 + 4",
			arrivals.Load(), s.Attempts, s.TransportResends, resends)
	}
}

// Under concurrent load through one client, with one request in three dropped after it was
// read (on fresh connections too, so that attempts fail and are retried), the server's
// arrivals equal the attempts plus the re-sends exactly (issue 15 item 3). Bounded: 8
// goroutines of 25 requests.
func TestArrivalsEqualAttemptsPlusResends(t *testing.T) {
	var seq atomic.Int64
	srv, arrivals := droppingServer(t, func(int64) bool { return seq.Add(1)%3 == 0 })
	m := new(retry.Metrics)
	p := constant(t, time.Millisecond, 5, 10*time.Second)
	p.OnDecision = m.Observe
	c := client(t, &retryhttp.Transport{Policy: p})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 25 {
				if resp, err := c.Get(srv.URL); err == nil { // 5 attempts may all be dropped
					readAll(t, resp)
				}
			}
		})
	}
	wg.Wait()
	s := m.Snapshot()
	if arrivals.Load() != int64(s.Attempts+s.TransportResends) || s.TransportResends == 0 || s.Retries == 0 {
		t.Errorf("server arrivals %d; attempts %d + transport re-sends %d = %d; want equal, with re-sends",
			arrivals.Load(), s.Attempts, s.TransportResends, s.Attempts+s.TransportResends)
	}
	t.Logf("200 requests: %d arrivals = %d attempts (%d retries) + %d transport re-sends",
		arrivals.Load(), s.Attempts, s.Retries, s.TransportResends)
}
