package retryhttp_test

import (
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// Issue 17 item 6: the final error of a keyed write says whether the write may have been
// applied. The case is the first row: three dropped connections on a keyed POST end
// attempts_exhausted, and the order does exist (the script's Drop processes the request).
func TestMayHaveApplied(t *testing.T) {
	drop, reset, refuse := retrytest.Step{Action: retrytest.Drop}, retrytest.Step{Action: retrytest.Reset}, retrytest.Step{Action: retrytest.Refuse}
	busy, failing := retrytest.Step{Status: 503}, retrytest.Step{Status: 500}
	for _, tc := range []struct {
		name    string
		method  string
		keyed   bool
		steps   []retrytest.Step
		reason  retry.Reason
		applied bool
	}{
		{"keyed POST, three dropped connections", "POST", true, []retrytest.Step{drop, drop, drop}, retry.ReasonAttemptsExhausted, true},
		{"keyed POST, dropped then declined twice", "POST", true, []retrytest.Step{drop, busy, busy}, retry.ReasonAttemptsExhausted, true},
		{"keyed POST, three 500s", "POST", true, []retrytest.Step{failing, failing, failing}, retry.ReasonAttemptsExhausted, true},
		{"keyed POST, declined three times (503)", "POST", true, []retrytest.Step{busy, busy, busy}, retry.ReasonAttemptsExhausted, false},
		{"keyed POST, never sent (refused dial)", "POST", true, []retrytest.Step{refuse, refuse, refuse}, retry.ReasonAttemptsExhausted, false},
		{"POST without a key, dropped: unknown outcome", "POST", false, []retrytest.Step{drop}, retry.ReasonUnknownOutcome, true},
		{"GET, reset three times", "GET", false, []retrytest.Step{reset, reset, reset}, retry.ReasonAttemptsExhausted, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := scripted(t, retrytest.Script{Steps: tc.steps})
				tr := &retryhttp.Transport{Base: rt, Policy: constant(t, time.Second, 3, 10*time.Second), AutoIdempotencyKey: tc.keyed}
				body := ""
				if tc.method == http.MethodPost {
					body = `{"item":"book"}`
				}
				resp, err := tr.RoundTrip(request(t, tc.method, "http://orders.test/orders", body))
				if resp != nil {
					t.Fatalf("RoundTrip returned a response: %v", resp.Status)
				}
				if rerr := (*retryhttp.ResponseError)(nil); errors.As(err, &rerr) {
					readAll(t, rerr.Response) // the 500 or 503 comes back inside the error
				}
				var stop *retry.Error
				if !errors.As(err, &stop) || stop.Reason != tc.reason || stop.MayHaveApplied != tc.applied {
					t.Fatalf("err = %#v; want %s with MayHaveApplied %v", err, tc.reason, tc.applied)
				}
			})
		})
	}
}
