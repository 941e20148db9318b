package retryhttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// A GET through a retrying client: the server answers 503 twice, then 200.
func ExampleNewClient() {
	srv, err := retrytest.NewServer(retrytest.Script{Steps: []retrytest.Step{
		{Status: 503}, {Status: 503}, {Status: 200, Body: "hello"}}})
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	client := retryhttp.NewClient(&retry.Policy{
		MaxAttempts: 4,
		Timeout:     10 * time.Second, // attempts and waits together
		OnDecision: func(_ context.Context, d retry.Decision) {
			fmt.Println("attempt", d.Attempt, d.Status, d.Reason)
		},
	})
	defer client.CloseIdleConnections()

	resp, err := client.Get(srv.URL + "/greeting")
	if err != nil {
		fmt.Println(retryhttp.RedactError(err))
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))
	// Output:
	// attempt 1 503 retryable_status
	// attempt 2 503 retryable_status
	// attempt 3 200 success
	// 200 hello
}

// A POST with an automatic idempotency key: the server reads the first attempt, creates the
// order and drops the connection; the retry carries the same key and body, and the server,
// which deduplicates by key, creates no second order.
func ExampleTransport_idempotencyKey() {
	srv, err := retrytest.NewServer(retrytest.Script{
		Steps:  []retrytest.Step{{Action: retrytest.Drop}, {Status: 201, Body: "order 1"}},
		Dedupe: true,
	})
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	client := &http.Client{Transport: &retryhttp.Transport{
		Policy:             &retry.Policy{MaxAttempts: 3, Timeout: 10 * time.Second},
		AutoIdempotencyKey: true, // the server's Idempotency-Key contract makes a repeat safe
	}}
	defer client.CloseIdleConnections()

	resp, err := client.Post(srv.URL+"/orders", "application/json", strings.NewReader(`{"item":42}`))
	if err != nil {
		fmt.Println(retryhttp.RedactError(err))
		return
	}
	resp.Body.Close()
	rec := srv.Received()
	fmt.Println(resp.StatusCode, "attempts:", srv.Requests(), "orders:", srv.Orders())
	fmt.Println("same key:", rec[0].Header.Get("Idempotency-Key") == rec[1].Header.Get("Idempotency-Key"))
	// Output:
	// 201 attempts: 2 orders: 1
	// same key: true
}

// Without a key, the same dropped POST is an unknown outcome: it is not sent again.
func ExampleTransport_unknownOutcome() {
	srv, err := retrytest.NewServer(retrytest.Script{Steps: []retrytest.Step{{Action: retrytest.Drop}, {Status: 201}}})
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	client := retryhttp.NewClient(nil)
	defer client.CloseIdleConnections()

	_, err = client.Post(srv.URL+"/orders", "application/json", strings.NewReader(`{"item":42}`))
	var stop *retry.Error
	if errors.As(err, &stop) {
		fmt.Println(stop.Reason, errors.Is(err, retry.ErrUnknownOutcome), "attempts:", stop.Attempts, "orders:", srv.Orders())
	}
	// Output: unknown_outcome true attempts: 1 orders: 1
}

// With PreloadBody, a body cut off mid-transfer fails its attempt, which is retried: the
// server announces 11 bytes and sends 4 the first time.
func ExampleTransport_preloadBody() {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "11")
		if calls.Add(1) == 1 {
			io.WriteString(w, "hell") // then the connection closes
			return
		}
		io.WriteString(w, "hello world")
	}))
	defer srv.Close()

	client := &http.Client{Transport: &retryhttp.Transport{
		PreloadBody: 1 << 20, // read up to 1 MiB of the body within the attempt
		Policy: &retry.Policy{MaxAttempts: 3, OnDecision: func(_ context.Context, d retry.Decision) {
			fmt.Println("attempt", d.Attempt, d.Reason, d.Err)
		}},
	}}
	defer client.CloseIdleConnections()
	resp, err := client.Get(srv.URL)
	if err != nil {
		fmt.Println(retryhttp.RedactError(err))
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Printf("%q\n", body)
	// Output:
	// attempt 1 retryable_error retryhttp: reading the response body (status 200) after 4 bytes: unexpected EOF
	// attempt 2 success <nil>
	// "hello world"
}
