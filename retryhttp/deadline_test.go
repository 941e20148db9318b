package retryhttp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
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

// Through http.Client, a deadline stop is a timeout as net/http's own deadline errors are:
// Client wraps RoundTrip's error in a *url.Error, whose Timeout asks the error it wraps,
// here a *ResponseError holding a 503 whose Retry-After does not fit. A stop for another
// reason is not a timeout.
func TestDeadlineStopIsAClientTimeout(t *testing.T) {
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	tests := []struct {
		name   string
		policy *retry.Policy
		want   retry.Reason
		isTime bool
	}{
		{"Retry-After beyond the Timeout", constant(t, time.Second, 3, 10*time.Second), retry.ReasonRetryAfterExceedsDeadline, true},
		{"Retry-After above MaxWait", &retry.Policy{MaxAttempts: 3, Timeout: retry.NoLimit, MaxWait: time.Second},
			retry.ReasonRetryAfterExceedsMaxWait, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := &http.Client{Transport: &retryhttp.Transport{Policy: tt.policy}}
			resp, err := client.Get(busy.URL)
			if resp != nil {
				resp.Body.Close()
			}
			var stop *retry.Error
			if !errors.As(err, &stop) || stop.Reason != tt.want {
				t.Fatalf("err = %v; want a stop with reason %s", err, tt.want)
			}
			var rerr *retryhttp.ResponseError
			if errors.As(err, &rerr) {
				rerr.Response.Body.Close()
			}
			var netErr net.Error
			if !errors.As(err, &netErr) || netErr.Timeout() != tt.isTime {
				t.Errorf("err %v: net.Error Timeout() = %v, want %v", err, netErr != nil && netErr.Timeout(), tt.isTime)
			}
		})
	}
}

// The zero ResponseError has a message and is not a timeout, rather than a nil-pointer panic.
func TestZeroResponseError(t *testing.T) {
	var e retryhttp.ResponseError
	if got := e.Error(); got != "retryhttp: response error" {
		t.Errorf("Error() = %q", got)
	}
	if e.Timeout() {
		t.Error("Timeout() = true, want false")
	}
}
