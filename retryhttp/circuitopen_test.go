package retryhttp_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// Issue 17 item 1, its setup exactly: per-host breakers opening after one failure, one
// attempt per request, an upstream that always answers 500, GET
// http://pricing.test/price?sku=a twice. The second request is refused by the breaker
// before any attempt; its record names the request like the first, and its error says when
// the breaker admits a trial call (the default open time, 30 s).
func TestCircuitOpenStopNamesTheRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 500}}})
		group, err := breaker.NewGroup(breaker.GroupConfig{Breaker: breaker.Config{ConsecutiveFailures: 1}})
		if err != nil {
			t.Fatal(err)
		}
		var records []string
		policy := &retry.Policy{MaxAttempts: 1, OnDecision: func(_ context.Context, d retry.Decision) {
			line, _ := d.MarshalJSON()
			records = append(records, string(line))
		}}
		tr := &retryhttp.Transport{Base: rt, Policy: policy, Breakers: group}
		resp, err := tr.RoundTrip(request(t, "GET", "http://pricing.test/price?sku=a", ""))
		if !errors.Is(err, retry.ErrAttemptsExhausted) {
			t.Fatalf("first GET: %v, %v; want attempts_exhausted", resp, err)
		}
		readAll(t, respOf(resp, err))
		_, err = tr.RoundTrip(request(t, "GET", "http://pricing.test/price?sku=a", ""))
		var stop *retry.Error
		if !errors.As(err, &stop) || stop.Reason != retry.ReasonCircuitOpen || stop.Attempts != 0 || retryAfter(stop) != 30*time.Second {
			t.Fatalf("second GET: %#v; want circuit_open after 0 attempts, RetryIn 30s", err)
		}
		if want := "retry: circuit_open after 0 attempts in 0s: trial call in 30s"; err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
		if in, ok := stop.RetryAfter(); !ok || in != 30*time.Second {
			t.Errorf("RetryAfter() = %v, %v; want 30s, true (a service can answer Retry-After: 30)", in, ok)
		}
		want := []string{
			`{"attempt":1,"method":"GET","url":"http://pricing.test/price?sku=a","status":500,"elapsed_ms":0,"remaining_ms":30000,"decision":"stop","reason":"attempts_exhausted","outcome":"failure","breaker":"OPEN"}`,
			`{"attempt":0,"method":"GET","url":"http://pricing.test/price?sku=a","elapsed_ms":0,"remaining_ms":30000,"decision":"stop","reason":"circuit_open","outcome":"failure","no_attempt":true,"breaker":"OPEN"}`,
		}
		if len(records) != 2 || records[0] != want[0] || records[1] != want[1] {
			t.Errorf("records\n got %q\nwant %q", records, want)
		}
		if n := len(rt.Received()); n != 1 {
			t.Errorf("%d requests sent, want 1", n)
		}
	})
}

// A caller that gave up before the first attempt gets a record naming its request too.
func TestCanceledBeforeAttemptNamesTheRequest(t *testing.T) {
	rt := scripted(t, retrytest.Script{})
	var got retry.Decision
	tr := &retryhttp.Transport{Base: rt, Policy: &retry.Policy{OnDecision: func(_ context.Context, d retry.Decision) { got = d }}}
	req := request(t, http.MethodPost, "http://orders.test/orders?token=secret", "")
	ctx, cancel := contextWithCancelAfter(req, 0)
	cancel()
	_, err := tr.RoundTrip(req.WithContext(ctx))
	if !errors.Is(err, retry.ErrCanceled) || got.Reason != retry.ReasonCanceled || !got.NoAttempt ||
		attr(got, "method") != "POST" || attr(got, "url") != "http://orders.test/orders?token=REDACTED" {
		t.Errorf("err %v, decision %+v; want canceled, naming POST http://orders.test/orders?token=REDACTED", err, got)
	}
}
