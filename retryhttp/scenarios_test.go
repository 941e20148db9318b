package retryhttp_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// scenario is one request through a Transport over a scripted RoundTripper, with what must
// come of it. The same table drives the behaviour tests and the redaction test.
type scenario struct {
	name      string
	method    string
	key       string // Idempotency-Key set by the caller
	auto      bool   // Transport.AutoIdempotencyKey
	reconcile retryhttp.Reconciler
	steps     []retrytest.Step

	wantStatus   int          // the response's status (direct or inside a ResponseError); 0: none
	wantErr      error        // a sentinel errors.Is must match; nil: no error
	wantRequests int          // requests the base saw
	wantOrders   int          // orders created (POSTs applied)
	wantReason   retry.Reason // the last decision's reason
}

var (
	reset   = retrytest.Step{Action: retrytest.Reset}
	drop    = retrytest.Step{Action: retrytest.Drop}
	refuse  = retrytest.Step{Action: retrytest.Refuse}
	ok200   = retrytest.Step{Status: 200, Body: "ok"}
	created = retrytest.Step{Status: 201, Body: "order 1"}
	status  = func(code int) retrytest.Step { return retrytest.Step{Status: code, Body: http.StatusText(code)} }
	badCert = retrytest.Step{Action: retrytest.Refuse, Err: x509.UnknownAuthorityError{}}
)

var scenarios = []scenario{
	{name: "GET reset then 200", method: "GET", steps: []retrytest.Step{reset, ok200}, wantStatus: 200, wantRequests: 2, wantReason: retry.ReasonSuccess},
	{name: "GET dropped then 200", method: "GET", steps: []retrytest.Step{drop, ok200}, wantStatus: 200, wantRequests: 2, wantReason: retry.ReasonSuccess},
	{name: "GET 404", method: "GET", steps: []retrytest.Step{status(404)}, wantStatus: 404, wantRequests: 1, wantReason: retry.ReasonNonRetryableStatus},
	{name: "GET 503 until exhausted", method: "GET", steps: []retrytest.Step{status(503)}, wantStatus: 503, wantErr: retry.ErrAttemptsExhausted, wantRequests: 3, wantReason: retry.ReasonAttemptsExhausted},
	{name: "GET bad certificate", method: "GET", steps: []retrytest.Step{badCert}, wantErr: retry.ErrNonRetryableError, wantRequests: 1, wantReason: retry.ReasonNonRetryableError},
	{name: "PUT 500 then 200", method: "PUT", steps: []retrytest.Step{status(500), ok200}, wantStatus: 200, wantRequests: 2, wantReason: retry.ReasonSuccess},
	{name: "DELETE reset then 200", method: "DELETE", steps: []retrytest.Step{reset, ok200}, wantStatus: 200, wantRequests: 2, wantReason: retry.ReasonSuccess},
	{name: "POST dropped", method: "POST", steps: []retrytest.Step{drop, created}, wantErr: retry.ErrUnknownOutcome, wantRequests: 1, wantOrders: 1, wantReason: retry.ReasonUnknownOutcome},
	{name: "POST reset after sending", method: "POST", steps: []retrytest.Step{reset, created}, wantErr: retry.ErrUnknownOutcome, wantRequests: 1, wantReason: retry.ReasonUnknownOutcome},
	{name: "POST refused before sending", method: "POST", steps: []retrytest.Step{refuse, created}, wantStatus: 201, wantRequests: 2, wantOrders: 1, wantReason: retry.ReasonSuccess},
	{name: "POST 503 declined", method: "POST", steps: []retrytest.Step{status(503), created}, wantStatus: 201, wantRequests: 2, wantOrders: 1, wantReason: retry.ReasonSuccess},
	{name: "POST 429 declined", method: "POST", steps: []retrytest.Step{status(429), created}, wantStatus: 201, wantRequests: 2, wantOrders: 1, wantReason: retry.ReasonSuccess},
	{name: "POST 500", method: "POST", steps: []retrytest.Step{status(500), created}, wantStatus: 500, wantErr: retry.ErrUnknownOutcome, wantRequests: 1, wantReason: retry.ReasonUnknownOutcome},
	{name: "PATCH 502", method: "PATCH", steps: []retrytest.Step{status(502), ok200}, wantStatus: 502, wantErr: retry.ErrUnknownOutcome, wantRequests: 1, wantReason: retry.ReasonUnknownOutcome},
	{name: "POST 409 without key", method: "POST", steps: []retrytest.Step{status(409)}, wantStatus: 409, wantRequests: 1, wantReason: retry.ReasonNonRetryableStatus},
	{name: "POST keyed 500 then 201", method: "POST", key: "order-key-1", steps: []retrytest.Step{status(500), created}, wantStatus: 201, wantRequests: 2, wantOrders: 1, wantReason: retry.ReasonSuccess},
	{name: "POST keyed dropped then 201", method: "POST", key: "order-key-1", steps: []retrytest.Step{drop, created}, wantStatus: 201, wantRequests: 2, wantOrders: 1, wantReason: retry.ReasonSuccess},
	{name: "POST keyed 409 then 201", method: "POST", key: "order-key-1", steps: []retrytest.Step{status(409), created}, wantStatus: 201, wantRequests: 2, wantOrders: 1, wantReason: retry.ReasonSuccess},
	{name: "POST keyed 422", method: "POST", key: "order-key-1", steps: []retrytest.Step{status(422)}, wantStatus: 422, wantRequests: 1, wantReason: retry.ReasonNonRetryableStatus},
	{name: "POST auto key dropped then 201", method: "POST", auto: true, steps: []retrytest.Step{drop, created}, wantStatus: 201, wantRequests: 2, wantOrders: 1, wantReason: retry.ReasonSuccess},
	{name: "POST dropped, reconciled applied", method: "POST", reconcile: reconcileWith(retryhttp.Applied), steps: []retrytest.Step{drop, created}, wantStatus: 200, wantRequests: 1, wantOrders: 1, wantReason: retry.ReasonSuccess},
	{name: "POST dropped, reconciled not applied", method: "POST", reconcile: reconcileWith(retryhttp.NotApplied), steps: []retrytest.Step{reset, created}, wantStatus: 201, wantRequests: 2, wantOrders: 1, wantReason: retry.ReasonSuccess},
	{name: "POST 500, still unknown", method: "POST", reconcile: reconcileWith(retryhttp.StillUnknown), steps: []retrytest.Step{status(500), created}, wantStatus: 500, wantErr: retry.ErrUnknownOutcome, wantRequests: 1, wantReason: retry.ReasonUnknownOutcome},
	{name: "POST dropped, applied without a response", method: "POST", reconcile: reconcileNoResponse, steps: []retrytest.Step{drop, created}, wantErr: retry.ErrUnknownOutcome, wantRequests: 1, wantOrders: 1, wantReason: retry.ReasonUnknownOutcome},
}

// reconcileWith answers res; for Applied it returns a response of its own, as a status
// lookup would, without sending anything.
func reconcileWith(res retryhttp.Resolution) retryhttp.Reconciler {
	return func(_ context.Context, req *http.Request, _ *http.Response, _ error) (retryhttp.Resolution, *http.Response) {
		if req.Body != nil {
			panic("the lookup request must have no body")
		}
		if res != retryhttp.Applied {
			return res, nil
		}
		return res, &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody}
	}
}

func reconcileNoResponse(context.Context, *http.Request, *http.Response, error) (retryhttp.Resolution, *http.Response) {
	return retryhttp.Applied, nil
}

// run plays s inside a synctest bubble and returns the decisions made.
func (s scenario) run(t *testing.T, p *retry.Policy, req *http.Request) []retry.Decision {
	var decisions []retry.Decision
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{Steps: s.steps, Dedupe: true})
		if s.key != "" {
			req.Header.Set("Idempotency-Key", s.key)
		}
		hook := p.OnDecision
		p.OnDecision = func(ctx context.Context, d retry.Decision) {
			decisions = append(decisions, d)
			if hook != nil {
				hook(ctx, d)
			}
		}
		tr := &retryhttp.Transport{Base: rt, Policy: p, AutoIdempotencyKey: s.auto, Reconcile: s.reconcile}
		resp, err := tr.RoundTrip(req)
		if s.wantErr == nil && err != nil || s.wantErr != nil && !errors.Is(err, s.wantErr) {
			t.Fatalf("err = %v; want %v", err, s.wantErr)
		}
		if s.wantErr != nil && resp != nil {
			t.Fatalf("a response beside an error: http.Client would drop it")
		}
		got := respOf(resp, err)
		switch {
		case s.wantStatus == 0 && got != nil:
			t.Fatalf("got a %d response; want none", got.StatusCode)
		case s.wantStatus != 0 && (got == nil || got.StatusCode != s.wantStatus):
			t.Fatalf("response = %v; want status %d", got, s.wantStatus)
		case got != nil:
			readAll(t, got)
		}
		if n := rt.Requests(); n != s.wantRequests {
			t.Errorf("requests = %d; want %d", n, s.wantRequests)
		}
		if n := rt.Orders(); n != s.wantOrders {
			t.Errorf("orders = %d; want %d", n, s.wantOrders)
		}
		if open, _ := rt.Bodies(); open != 0 {
			t.Errorf("%d response bodies left open", open)
		}
		rec := rt.Received()
		for i := range rec[1:] {
			if a, b := rec[0], rec[i+1]; a.Header.Get("Idempotency-Key") != b.Header.Get("Idempotency-Key") || !bytes.Equal(a.Body, b.Body) && b.Body != nil && a.Body != nil {
				t.Errorf("attempt %d sent key %q body %q; attempt 1 sent %q %q", i+2,
					b.Header.Get("Idempotency-Key"), b.Body, a.Header.Get("Idempotency-Key"), a.Body)
			}
		}
		if s.auto && rec[0].Header.Get("Idempotency-Key") == "" {
			t.Errorf("no key generated")
		}
		if s.key != "" && rec[0].Header.Get("Idempotency-Key") != s.key {
			t.Errorf("key %q sent; the caller set %q", rec[0].Header.Get("Idempotency-Key"), s.key)
		}
	})
	if len(decisions) == 0 || decisions[len(decisions)-1].Reason != s.wantReason {
		t.Errorf("decisions = %v; want the last with reason %s", reasons(decisions), s.wantReason)
	}
	return decisions
}

func reasons(ds []retry.Decision) []retry.Reason {
	r := make([]retry.Reason, len(ds))
	for i, d := range ds {
		r[i] = d.Reason
	}
	return r
}

func TestScenarios(t *testing.T) {
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			req := request(t, s.method, "http://api.test/orders", "{\"item\":42}")
			before := fmt.Sprint(req.Header)
			s.run(t, constant(t, time.Second, 3, 30*time.Second), req)
			if s.key == "" && fmt.Sprint(req.Header) != before {
				t.Errorf("the caller's request headers changed: %v", req.Header)
			}
		})
	}
}
