package retryhttp_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// client returns a client whose retrying Transport runs over a fresh http.Transport that
// is closed when the test ends.
func client(t *testing.T, tr *retryhttp.Transport) *http.Client {
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	tr.Base = base
	return &http.Client{Transport: tr}
}

// fast is a policy for real servers: 1 ms between attempts.
func fast(t *testing.T, attempts int) *retry.Policy {
	return constant(t, time.Millisecond, attempts, 10*time.Second)
}

// attr returns the string value of the attribute d's record carries under key ("method",
// "url", "breaker"), or "".
func attr(d retry.Decision, key string) string {
	if v, ok := d.Attr(key); ok {
		return v.String()
	}
	return ""
}

// retryAfter returns the wait a stop asks for before the operation is tried again.
func retryAfter(e *retry.Error) time.Duration {
	d, _ := e.RetryAfter()
	return d
}

func TestConnectionReuse(t *testing.T) {
	busy := retrytest.Step{Status: 503, Body: strings.Repeat("busy ", 1000)}
	srv := server(t, retrytest.Script{Steps: []retrytest.Step{busy, busy, busy, busy, {Status: 200, Body: "ok"}}})
	resp, err := client(t, &retryhttp.Transport{Policy: fast(t, 5)}).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, resp); got != "ok" {
		t.Fatalf("body %q", got)
	}
	if srv.Requests() != 5 || srv.Connections() != 1 {
		t.Errorf("%d requests on %d connections; want 5 on 1", srv.Requests(), srv.Connections())
	}
}

// TestHijackingServer: a server that closes the connection before reading the request
// (Reset) or after reading it (Drop).
func TestHijackingServer(t *testing.T) {
	cases := []struct {
		name                  string
		method                string
		auto                  bool
		step                  retrytest.Step
		wantErr               error
		wantRequests, wantOrd int
	}{
		{"GET closed before reading", "GET", false, reset, nil, 2, 0},
		{"GET closed after reading", "GET", false, drop, nil, 2, 0},
		{"POST closed before reading", "POST", false, reset, retry.ErrUnknownOutcome, 1, 0},
		{"POST closed after reading", "POST", false, drop, retry.ErrUnknownOutcome, 1, 1},
		{"keyed POST closed after reading", "POST", true, drop, nil, 2, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := server(t, retrytest.Script{Steps: []retrytest.Step{c.step, created}, Dedupe: true})
			cl := client(t, &retryhttp.Transport{Policy: fast(t, 3), AutoIdempotencyKey: c.auto})
			resp, err := cl.Do(request(t, c.method, srv.URL+"/orders", "item=42"))
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err = %v; want %v", err, c.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			} else {
				readAll(t, resp)
			}
			if srv.Requests() != c.wantRequests || srv.Orders() != c.wantOrd {
				t.Errorf("requests %d orders %d; want %d and %d", srv.Requests(), srv.Orders(), c.wantRequests, c.wantOrd)
			}
			if rec := srv.Received(); c.auto && rec[0].Header.Get("Idempotency-Key") != rec[1].Header.Get("Idempotency-Key") {
				t.Errorf("keys differ: %q %q", rec[0].Header.Get("Idempotency-Key"), rec[1].Header.Get("Idempotency-Key"))
			}
		})
	}
}

// TestRefusedDial: a POST whose dial is refused never left the client, so it is retried.
func TestRefusedDial(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = client(t, &retryhttp.Transport{Policy: fast(t, 3)}).Post("http://"+addr+"/orders", "text/plain", strings.NewReader("x"))
	if stop := stopOf(t, err); stop.Reason != retry.ReasonAttemptsExhausted || stop.Attempts != 3 {
		t.Fatalf("stop = %v; want attempts_exhausted after 3 attempts", stop)
	}
}

// TestDemoScenarios plays the CLI demo's scenarios 2 to 4 against a real server (scenario
// 1 waits a real second; TestDemoScenarioOne plays it under synctest).
func TestDemoScenarios(t *testing.T) {
	t.Run("2: Retry-After 120 under a 10 s timeout", func(t *testing.T) {
		srv := server(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503, Header: http.Header{"Retry-After": {"120"}}, Body: "maintenance"}}})
		start := time.Now()
		_, err := client(t, &retryhttp.Transport{Policy: &retry.Policy{Timeout: 10 * time.Second}}).Get(srv.URL)
		if !errors.Is(err, retry.ErrRetryAfterExceedsDeadline) {
			t.Fatalf("err = %v", err)
		}
		var rerr *retryhttp.ResponseError
		if !errors.As(err, &rerr) || rerr.Response.StatusCode != 503 || readAll(t, rerr.Response) != "maintenance" {
			t.Fatalf("the 503 and its body must come with the error")
		}
		if srv.Requests() != 1 || time.Since(start) > 5*time.Second {
			t.Errorf("%d requests; want 1, and no wait", srv.Requests())
		}
	})
	t.Run("3: POST without a key, dropped", func(t *testing.T) {
		srv := server(t, retrytest.Script{Steps: []retrytest.Step{drop, created}})
		_, err := client(t, &retryhttp.Transport{Policy: fast(t, 3)}).Post(srv.URL+"/orders", "application/json", strings.NewReader(`{"item":42}`))
		if !errors.Is(err, retry.ErrUnknownOutcome) || srv.Orders() != 1 || srv.Requests() != 1 {
			t.Fatalf("err = %v, orders %d, requests %d; want unknown_outcome, 1, 1", err, srv.Orders(), srv.Requests())
		}
	})
	t.Run("4: the same POST with an automatic key", func(t *testing.T) {
		srv := server(t, retrytest.Script{Steps: []retrytest.Step{drop, created}, Dedupe: true})
		resp, err := client(t, &retryhttp.Transport{Policy: fast(t, 3), AutoIdempotencyKey: true}).Post(srv.URL+"/orders", "application/json", strings.NewReader(`{"item":42}`))
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, resp)
		if resp.StatusCode != 201 || srv.Orders() != 1 || srv.Requests() != 2 {
			t.Errorf("status %d, orders %d, requests %d; want 201, 1, 2", resp.StatusCode, srv.Orders(), srv.Requests())
		}
	})
}

// TestZeroTransport: the zero Transport works over http.DefaultTransport.
func TestZeroTransport(t *testing.T) {
	srv := server(t, retrytest.Script{Steps: []retrytest.Step{{Status: 502}, {Body: "ok"}}})
	tr := &retryhttp.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != "ok" {
		t.Errorf("body %q", b)
	}
	resp.Body.Close()
}
