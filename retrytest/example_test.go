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
