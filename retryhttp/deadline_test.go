package retryhttp_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// Issue 12 item 4 through retryhttp: a 503 whose Retry-After does not fit before the
// deadline stops at once, and the error, a *ResponseError holding the response, matches
// context.DeadlineExceeded as well as its own sentinel, so a proxy can answer 504.
func TestRetryAfterBeyondDeadlineIsADeadlineError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503, Header: http.Header{"Retry-After": {"120"}}}}})
		_, err := (&retryhttp.Transport{Base: rt, Policy: constant(t, time.Second, 3, 10*time.Second)}).
			RoundTrip(request(t, http.MethodGet, "http://api.test/", ""))
		var rerr *retryhttp.ResponseError
		if !errors.As(err, &rerr) {
			t.Fatalf("err = %v; want a *ResponseError", err)
		}
		defer rerr.Response.Body.Close()
		if !errors.Is(err, retry.ErrRetryAfterExceedsDeadline) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v; want it to match ErrRetryAfterExceedsDeadline and context.DeadlineExceeded", err)
		}
	})
}
