package retrytest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry/retrytest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func post(t *testing.T, c *http.Client, url, key, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set(retrytest.IdempotencyKeyHeader, key)
	}
	return c.Do(req)
}

func TestServerPlaysTheScript(t *testing.T) {
	srv, err := retrytest.NewServer(retrytest.Script{Steps: []retrytest.Step{
		{Status: 503, Header: http.Header{"Retry-After": {"1"}}, Body: "busy"},
		{Action: retrytest.Reset},
		{Status: 200, Body: "ok"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}

	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || string(body) != "busy" {
		t.Fatalf("step 1: %d %q %q", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if _, err := c.Get(srv.URL); err == nil {
		t.Fatal("step 2 (Reset) answered")
	}
	for i := 0; i < 2; i++ { // step 3, then step 3 again: the last step repeats
		resp, err := c.Get(srv.URL)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("step 3: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	if srv.Requests() != 4 || srv.Connections() != 4 {
		t.Errorf("requests %d, connections %d; want 4 and 4 (keep-alives off)", srv.Requests(), srv.Connections())
	}
	if rec := srv.Received(); rec[1].Action != retrytest.Reset || rec[3].Step != 2 {
		t.Errorf("received = %+v", rec)
	}
}

func TestServerOrdersAndDedupe(t *testing.T) {
	for _, dedupe := range []bool{false, true} {
		srv, err := retrytest.NewServer(retrytest.Script{Steps: []retrytest.Step{{Action: retrytest.Drop}, {Status: 201}}, Dedupe: dedupe})
		if err != nil {
			t.Fatal(err)
		}
		tr := &http.Transport{DisableKeepAlives: true}
		c := &http.Client{Transport: tr}
		if _, err := post(t, c, srv.URL, "k1", "order"); err == nil {
			t.Fatal("Drop answered")
		}
		resp, err := post(t, c, srv.URL, "k1", "order")
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("second POST: %v %v", resp, err)
		}
		resp.Body.Close()
		resp, err = post(t, c, srv.URL, "k1", "another order")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		wantOrders, wantStatus := 3, 201
		if dedupe {
			wantOrders, wantStatus = 1, 422
		}
		if srv.Orders() != wantOrders || resp.StatusCode != wantStatus {
			t.Errorf("dedupe %v: orders %d, reused key with another body answered %d; want %d, %d",
				dedupe, srv.Orders(), resp.StatusCode, wantOrders, wantStatus)
		}
		srv.Close()
		tr.CloseIdleConnections()
	}
}

func TestServerCountsConnections(t *testing.T) {
	srv, err := retrytest.NewServer(retrytest.Script{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	for range 3 {
		resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if srv.Requests() != 3 || srv.Connections() != 1 {
		t.Errorf("requests %d, connections %d; want 3 on 1", srv.Requests(), srv.Connections())
	}
}

func TestBadScripts(t *testing.T) {
	for _, s := range []retrytest.Script{
		{Steps: []retrytest.Step{{Status: 42}}},
		{Steps: []retrytest.Step{{Delay: -time.Second}}},
		{Steps: []retrytest.Step{{Action: 9}}},
	} {
		if _, err := retrytest.NewRoundTripper(s); err == nil {
			t.Errorf("NewRoundTripper(%+v) accepted", s)
		}
	}
	for _, st := range []retrytest.Step{{Action: retrytest.Refuse}, {Action: retrytest.Reset, Err: io.EOF}} {
		if srv, err := retrytest.NewServer(retrytest.Script{Steps: []retrytest.Step{st}}); err == nil {
			srv.Close()
			t.Errorf("NewServer accepted %+v", st)
		}
	}
}

func TestRoundTripper(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, err := retrytest.NewRoundTripper(retrytest.Script{Steps: []retrytest.Step{
			{Action: retrytest.Refuse}, {Action: retrytest.Drop}, {Status: 202, Body: "slow", Delay: 3 * time.Second}}})
		if err != nil {
			t.Fatal(err)
		}
		var events []string
		trace := &httptrace.ClientTrace{
			GetConn:      func(string) { events = append(events, "get") },
			WroteHeaders: func() { events = append(events, "wrote") },
		}
		ctx := httptrace.WithClientTrace(context.Background(), trace)
		send := func() (*http.Response, error) {
			req, _ := http.NewRequestWithContext(ctx, "POST", "http://api.test/orders", strings.NewReader("x"))
			return rt.RoundTrip(req)
		}
		if _, err := send(); err == nil {
			t.Fatal("Refuse answered")
		}
		if _, err := send(); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("Drop: %v", err)
		}
		start := time.Now()
		resp, err := send()
		if err != nil || resp.StatusCode != 202 || time.Since(start) != 3*time.Second {
			t.Fatalf("third: %v %v after %v", resp, err, time.Since(start))
		}
		if open, _ := rt.Bodies(); open != 1 {
			t.Errorf("open bodies %d; want 1", open)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if open, drained := rt.Bodies(); string(b) != "slow" || open != 0 || drained != 1 {
			t.Errorf("body %q, open %d, drained %d", b, open, drained)
		}
		if got := strings.Join(events, " "); got != "get get wrote get wrote" {
			t.Errorf("trace events %q", got)
		}
		if rt.Requests() != 3 || rt.Orders() != 2 {
			t.Errorf("requests %d orders %d; want 3 and 2", rt.Requests(), rt.Orders())
		}
	})
}

func TestRoundTripperBodyEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, _ := retrytest.NewRoundTripper(retrytest.Script{Steps: []retrytest.Step{{Body: "data"}}})
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, err := io.ReadAll(resp.Body); !errors.Is(err, context.Canceled) {
			t.Errorf("read after cancel: %v", err)
		}
		resp.Body.Close()
		if _, drained := rt.Bodies(); drained != 0 {
			t.Errorf("an unread body counted as drained")
		}
	})
}
