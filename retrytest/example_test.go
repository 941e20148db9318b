package retrytest_test

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/retrykit/retry/retrytest"
)

// A server for the CLI demo's third scenario: the first POST is read and applied, then its
// connection is dropped without an answer.
func ExampleNewServer() {
	srv, err := retrytest.NewServer(retrytest.Script{Steps: []retrytest.Step{
		{Action: retrytest.Drop},
		{Status: 201, Body: "created"},
	}})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()

	_, err = (&http.Client{Transport: tr}).Post(srv.URL+"/orders", "text/plain", strings.NewReader("one"))
	fmt.Println("answered:", err == nil, "requests:", srv.Requests(), "orders:", srv.Orders(), "connections:", srv.Connections())
	// Output: answered: false requests: 1 orders: 1 connections: 1
}

// Two upstreams on one in-memory RoundTripper, and a lookup with a script of its own: the
// GET does not consume the step scripted for the POST.
func ExampleNewRoutedRoundTripper() {
	rt, err := retrytest.NewRoutedRoundTripper(retrytest.Routes{
		"pricing.test/":              {Steps: []retrytest.Step{{Body: "12.50"}}},
		"POST orders.test/orders":    {Steps: []retrytest.Step{{Action: retrytest.Drop}, {Status: 201}}},
		"GET orders.test/orders/{k}": {Steps: []retrytest.Step{{Status: 404}}},
	})
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: rt}
	_, err = client.Post("http://orders.test/orders", "text/plain", strings.NewReader("one"))
	fmt.Println("POST answered:", err == nil)
	resp, _ := client.Get("http://orders.test/orders/k1")
	resp.Body.Close()
	fmt.Println("lookup:", resp.StatusCode)
	resp, _ = client.Post("http://orders.test/orders", "text/plain", strings.NewReader("one"))
	resp.Body.Close()
	fmt.Println("POST again:", resp.StatusCode)
	for _, r := range rt.Received() {
		fmt.Println(r.Route, "step", r.Step)
	}
	// Output:
	// POST answered: false
	// lookup: 404
	// POST again: 201
	// POST orders.test/orders step 0
	// GET orders.test/orders/{k} step 0
	// POST orders.test/orders step 1
}

// A handler served by net/http over in-memory connections: inside a testing/synctest bubble,
// its waits run on the bubble's clock; outside one, as here, on the real clock.
func ExampleNewPipeServer() {
	srv := retrytest.NewPipeServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After-Ms", "1500")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()

	req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/models", nil)
	if err != nil {
		panic(err)
	}
	resp, err := srv.Transport().RoundTrip(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Retry-After-Ms"), srv.Connections())
	// Output:
	// 429 1500 1
}
