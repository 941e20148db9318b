package retrytest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/retrykit/retry/retrytest"
)

// received is one request as a test compares it: route, step, method and path.
type received struct {
	route  string
	step   int
	method string
	path   string
}

func summary(rs []retrytest.Received) []received {
	out := make([]received, len(rs))
	for i, r := range rs {
		out[i] = received{r.Route, r.Step, r.Method, r.Path}
	}
	return out
}

func equalReceived(t *testing.T, got []retrytest.Received, want []received) {
	t.Helper()
	g := summary(got)
	if len(g) != len(want) {
		t.Fatalf("received %+v\nwant %+v", g, want)
	}
	for i := range want {
		if g[i] != want[i] {
			t.Errorf("request %d: %+v, want %+v", i, g[i], want[i])
		}
	}
}

// A RoundTripper with routes per host and per method and path: two upstreams on one
// client, and a lookup that does not consume the write's next step; an unmatched request
// gets 404 (issue 17 item 8).
func TestRoutedRoundTripper(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, err := retrytest.NewRoutedRoundTripper(retrytest.Routes{
			"pricing.test/":              {Steps: []retrytest.Step{{Status: 503}, {Status: 200, Body: "42"}}},
			"POST orders.test/orders":    {Steps: []retrytest.Step{{Action: retrytest.Drop}, {Status: 201}}, Dedupe: true},
			"GET orders.test/orders/{k}": {Steps: []retrytest.Step{{Status: 404}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Transport: rt}
		send := func(method, url string) (int, string) {
			req, _ := http.NewRequest(method, url, strings.NewReader("sku=a"))
			req.Header.Set(retrytest.IdempotencyKeyHeader, "k1")
			resp, err := c.Do(req)
			if err != nil {
				return 0, err.Error()
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return resp.StatusCode, string(b)
		}
		if status, _ := send("POST", "http://orders.test/orders"); status != 0 {
			t.Errorf("first POST answered %d, want the Drop", status)
		}
		if status, _ := send("GET", "http://pricing.test/price"); status != 503 {
			t.Errorf("first GET pricing: %d, want 503", status)
		}
		if status, _ := send("GET", "http://orders.test/orders/k1"); status != 404 {
			t.Errorf("lookup: %d, want 404", status)
		}
		if status, _ := send("POST", "http://orders.test/orders"); status != 201 {
			t.Errorf("second POST: %d, want 201 (the lookup left the write's step alone)", status)
		}
		if status, body := send("GET", "http://pricing.test/price"); status != 200 || body != "42" {
			t.Errorf("second GET pricing: %d %q, want 200 42", status, body)
		}
		if status, body := send("DELETE", "http://elsewhere.test/x"); status != 404 || body != "retrytest: no route matches DELETE elsewhere.test/x\n" {
			t.Errorf("unmatched: %d %q", status, body)
		}
		equalReceived(t, rt.Received(), []received{
			{"POST orders.test/orders", 0, "POST", "/orders"},
			{"pricing.test/", 0, "GET", "/price"},
			{"GET orders.test/orders/{k}", 0, "GET", "/orders/k1"},
			{"POST orders.test/orders", 1, "POST", "/orders"},
			{"pricing.test/", 1, "GET", "/price"},
			{"", -1, "DELETE", "/x"},
		})
		if rt.Requests() != 6 || rt.Orders() != 1 {
			t.Errorf("requests %d, orders %d; want 6 and 1 (the key deduplicated the second POST)", rt.Requests(), rt.Orders())
		}
	})
}

// A Server with routes by method and path: the orders POST and its lookup play their own
// scripts on one server.
func TestRoutedServer(t *testing.T) {
	srv, err := retrytest.NewRoutedServer(retrytest.Routes{
		"POST /orders":      {Steps: []retrytest.Step{{Action: retrytest.Drop}, {Status: 201}}},
		"GET /orders/{key}": {Steps: []retrytest.Step{{Status: 200, Body: "found"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	if _, err := post(t, c, srv.URL+"/orders", "", "one"); err == nil {
		t.Fatal("the dropped POST was answered")
	}
	resp, err := c.Get(srv.URL + "/orders/k1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "found" {
		t.Errorf("lookup: %d %q", resp.StatusCode, b)
	}
	resp, err = post(t, c, srv.URL+"/orders", "", "one")
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("second POST: %v %v", resp, err)
	}
	resp.Body.Close()
	equalReceived(t, srv.Received(), []received{
		{"POST /orders", 0, "POST", "/orders"},
		{"GET /orders/{key}", 0, "GET", "/orders/k1"},
		{"POST /orders", 1, "POST", "/orders"},
	})
	if srv.Orders() != 2 {
		t.Errorf("orders %d, want 2 (no key, both applied)", srv.Orders())
	}
}

func TestBadRoutes(t *testing.T) {
	for _, c := range []struct {
		routes retrytest.Routes
		want   string
	}{
		{nil, "no routes"},
		{retrytest.Routes{"": {}}, `route ""`},
		{retrytest.Routes{"GET": {}}, `route "GET"`},
		{retrytest.Routes{"/a": {}, "GET /b": {Steps: []retrytest.Step{{Status: 42}}}}, `route "GET /b": step 0 has Status 42`},
		{retrytest.Routes{"/x/{a}": {}, "/{b}/y": {}}, "conflicts"},
	} {
		if _, err := retrytest.NewRoutedRoundTripper(c.routes); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewRoutedRoundTripper(%v): %v, want an error with %q", c.routes, err, c.want)
		}
	}
	_, err := retrytest.NewRoutedServer(retrytest.Routes{"/": {Steps: []retrytest.Step{{Action: retrytest.Refuse}}}})
	if err == nil || !strings.Contains(err.Error(), `route "/": step 0`) {
		t.Errorf("NewRoutedServer with Refuse: %v", err)
	}
}

// With several routes that only a RoundTripper can play, NewRoutedServer names the first in
// sorted order, the same on every run (map order used to pick one at random).
func TestRoutedServerNamesFirstBadRoute(t *testing.T) {
	refuse := retrytest.Script{Steps: []retrytest.Step{{Action: retrytest.Refuse}}}
	routes := retrytest.Routes{"/c": refuse, "/a": refuse, "/b": refuse, "/d": refuse}
	want := `retrytest: route "/a": step 0 (`
	for range 20 {
		if _, err := retrytest.NewRoutedServer(routes); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("NewRoutedServer: %v, want an error beginning %q", err, want)
		}
	}
}
