package retryhttp_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// A chat completion whose 429 asks, in retry-after-ms as OpenAI and Anthropic write it, for a
// wait longer than the time left: the loop stops at once rather than sleep into the deadline,
// with the 429 in hand and the header that asked named.
func ExampleTransport_retryAfterMilliseconds() {
	srv, err := retrytest.NewServer(retrytest.Script{Steps: []retrytest.Step{
		{Status: 429, Header: http.Header{"Retry-After-Ms": {"20000"}}, Body: `{"error":{"type":"rate_limit_error"}}`}}})
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	client := &http.Client{Transport: &retryhttp.Transport{Policy: &retry.Policy{Timeout: 3 * time.Second}}}
	defer client.CloseIdleConnections()
	resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"gpt-5.4-mini"}`))
	var rerr *retryhttp.ResponseError
	if errors.As(err, &rerr) {
		defer rerr.Response.Body.Close()
		var stop *retry.Error
		errors.As(err, &stop)
		wait, _ := stop.RetryAfter()
		fmt.Println(stop.Reason, rerr.Response.StatusCode, wait, stop.RetryAfterFrom(), srv.Requests())
		return
	}
	if err == nil {
		resp.Body.Close()
	}
	// Output:
	// retry_after_exceeds_deadline 429 20s retry-after-ms 1
}
