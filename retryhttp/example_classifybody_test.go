package retryhttp_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// A rule of one's own, read from the start of the body: this API answers 503 both when it is
// busy and when it is down for maintenance, and only its body tells them apart. A 503 "under
// maintenance" is not worth retrying today; a busy one is, after the wait its body asks for.
func ExampleTransport_classifyBody() {
	srv, err := retrytest.NewServer(retrytest.Script{Steps: []retrytest.Step{
		{Status: 503, Body: `{"error":"busy","retry_in_ms":50}`},
		{Status: 503, Body: `{"error":"under maintenance"}`}}})
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	tr := &retryhttp.Transport{
		Policy: &retry.Policy{OnDecision: func(_ context.Context, d retry.Decision) {
			if d.HasRetryAfter {
				fmt.Printf("attempt %d: %d, %s, asked %v (%s)\n", d.Attempt, d.Status, d.Reason, d.RetryAfter, d.RetryAfterFrom)
				return
			}
			fmt.Printf("attempt %d: %d, %s\n", d.Attempt, d.Status, d.Reason)
		}},
		ClassifyBody: func(status int, _ http.Header, prefix []byte) retryhttp.BodyVerdict {
			switch {
			case status == http.StatusServiceUnavailable && bytes.Contains(prefix, []byte(`"under maintenance"`)):
				return retryhttp.BodyVerdict{Class: retry.ClassPermanent}
			case status == http.StatusServiceUnavailable && bytes.Contains(prefix, []byte(`"retry_in_ms":50`)):
				return retryhttp.BodyVerdict{RetryAfter: 50 * time.Millisecond}
			}
			return retryhttp.BodyVerdict{}
		},
	}
	client := &http.Client{Transport: tr}
	defer client.CloseIdleConnections()

	resp, err := client.Get(srv.URL)
	if err != nil {
		fmt.Println(retryhttp.RedactError(err))
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// attempt 1: 503, retry_after, asked 50ms (classify-body)
	// attempt 2: 503, non_retryable_status
	// 503
}
