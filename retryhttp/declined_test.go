package retryhttp_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// Issue 25 item 4: a write answered with a 4xx that the policy retries was refused by the
// server (RFC 9110 section 15.5), so it was not applied: it is retried like a 429 or a 503,
// never stopped as an unknown outcome. The case is the first row (retry http -d x
// --retry-on 400 against a 400 stopped with unknown_outcome after 1 request). A 5xx other
// than 503 still leaves the outcome unknown, and a keyed request's 409 (the original with
// the key still in progress) still says the write may exist.
func TestWriteRefusedWithA4xxIsRetried(t *testing.T) {
	for _, tc := range []struct {
		name      string
		method    string
		keyed     bool
		retryable []int
		steps     []retrytest.Step
		requests  int
		reason    retry.Reason
		applied   bool // the *retry.Error's MayHaveApplied, when the loop fails
	}{
		{"POST 400 then 201", "POST", false, []int{400}, []retrytest.Step{status(400), created}, 2, retry.ReasonSuccess, false},
		{"POST 422 three times", "POST", false, []int{422, 503}, []retrytest.Step{status(422)}, 3, retry.ReasonAttemptsExhausted, false},
		{"PATCH 404 then 200", "PATCH", false, []int{404}, []retrytest.Step{status(404), ok200}, 2, retry.ReasonSuccess, false},
		{"POST 499 (unregistered, as 400) then 201", "POST", false, []int{400}, []retrytest.Step{status(499), created}, 2, retry.ReasonSuccess, false},
		{"POST 400 not in the list", "POST", false, []int{503}, []retrytest.Step{status(400)}, 1, retry.ReasonNonRetryableStatus, false},
		{"POST 500 in the list: unknown", "POST", false, []int{400, 500}, []retrytest.Step{status(500)}, 1, retry.ReasonUnknownOutcome, true},
		{"keyed POST 400 three times", "POST", true, []int{400}, []retrytest.Step{status(400)}, 3, retry.ReasonAttemptsExhausted, false},
		{"keyed POST 409 three times: the original may exist", "POST", true, nil, []retrytest.Step{status(409)}, 3, retry.ReasonAttemptsExhausted, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := scripted(t, retrytest.Script{Steps: tc.steps})
				p := constant(t, time.Second, 3, 10*time.Second)
				p.RetryableStatuses = tc.retryable
				var last retry.Decision
				p.OnDecision = func(_ context.Context, d retry.Decision) { last = d }
				tr := &retryhttp.Transport{Base: rt, Policy: p, AutoIdempotencyKey: tc.keyed}
				resp, err := tr.RoundTrip(request(t, tc.method, "http://orders.test/orders", `{"item":"book"}`))
				if got := respOf(resp, err); got != nil {
					readAll(t, got)
				}
				if n := rt.Requests(); n != tc.requests || last.Reason != tc.reason {
					t.Fatalf("%d requests, last reason %s; want %d, %s (err %v)", n, last.Reason, tc.requests, tc.reason, err)
				}
				var stop *retry.Error
				if errors.As(err, &stop) && stop.MayHaveApplied != tc.applied {
					t.Errorf("MayHaveApplied %v; want %v", stop.MayHaveApplied, tc.applied)
				}
				if tc.reason == retry.ReasonUnknownOutcome && !errors.Is(err, retry.ErrUnknownOutcome) {
					t.Errorf("err = %v; want an unknown outcome", err)
				}
				if tc.reason == retry.ReasonSuccess && (err != nil || resp.StatusCode >= 300) {
					t.Errorf("err = %v, resp %v; want the success", err, resp)
				}
			})
		})
	}
}
