package retryhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// One shared Transport, three policies: the request's context (WithPolicy) wins over
// PolicyFor, which wins over Policy; each decides the attempts and the attempt deadline of
// its own requests (issue 17 item 4).
func TestPerRequestPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503}}})
		shared := constant(t, time.Second, 2, time.Minute)
		orders := constant(t, time.Second, 3, time.Minute)
		orders.AttemptTimeout = 5 * time.Second
		pricing := constant(t, time.Second, 4, time.Minute)
		pricing.AttemptTimeout = 800 * time.Millisecond
		c := &http.Client{Transport: &retryhttp.Transport{Base: rt, Policy: shared,
			PolicyFor: func(req *http.Request) *retry.Policy {
				if req.URL.Host == "orders.test" {
					return orders
				}
				return nil // the Transport's Policy
			}}}
		send := func(ctx context.Context, url string) (attempts int, attemptTimeouts []time.Duration) {
			t.Helper()
			before := rt.Requests()
			req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
			_, err := c.Do(req)
			if stop := stopOf(t, err); stop.Reason != retry.ReasonAttemptsExhausted {
				t.Fatalf("GET %s: %v", url, err)
			}
			for _, r := range rt.Received()[before:] {
				attemptTimeouts = append(attemptTimeouts, r.Deadline.Sub(r.At))
			}
			return rt.Requests() - before, attemptTimeouts
		}
		start := time.Now()
		n, timeouts := send(context.Background(), "http://pricing.test/price")
		if n != 2 || timeouts[0] != time.Minute || timeouts[1] != time.Minute-time.Second {
			t.Errorf("Transport.Policy: %d attempts, attempt deadlines %v; want 2, [1m 59s]", n, timeouts)
		}
		n, timeouts = send(context.Background(), "http://orders.test/orders")
		if n != 3 || timeouts[0] != 5*time.Second || timeouts[2] != 5*time.Second {
			t.Errorf("PolicyFor: %d attempts, attempt deadlines %v; want 3, 5s each", n, timeouts)
		}
		n, timeouts = send(retryhttp.WithPolicy(context.Background(), pricing), "http://orders.test/orders")
		if n != 4 || timeouts[0] != 800*time.Millisecond || timeouts[3] != 800*time.Millisecond {
			t.Errorf("WithPolicy: %d attempts, attempt deadlines %v; want 4, 800ms each", n, timeouts)
		}
		n, _ = send(retryhttp.WithPolicy(retryhttp.WithPolicy(context.Background(), pricing), nil), "http://orders.test/orders")
		if n != 3 {
			t.Errorf("WithPolicy(nil) under WithPolicy: %d attempts, want PolicyFor's 3", n)
		}
		if elapsed := time.Since(start); elapsed != (1+2+3+2)*time.Second {
			t.Errorf("elapsed %v, want 8s of waits", elapsed)
		}
	})
}

// A policy from the context is validated like any: an invalid one fails the request
// before any attempt, naming the field.
func TestPerRequestPolicyInvalid(t *testing.T) {
	rt := scripted(t, retrytest.Script{})
	c := &http.Client{Transport: &retryhttp.Transport{Base: rt}}
	req, _ := http.NewRequestWithContext(retryhttp.WithPolicy(context.Background(), &retry.Policy{MaxAttempts: -5}), "GET", "http://h.test/", nil)
	_, err := c.Do(req)
	if !errors.Is(err, retry.ErrInvalidPolicy) || !strings.Contains(err.Error(), "MaxAttempts -5") || rt.Requests() != 0 {
		t.Errorf("err = %v after %d requests; want ErrInvalidPolicy naming MaxAttempts -5, 0 requests", err, rt.Requests())
	}
}

// okBase answers 200 with an empty body, allocating as little as a RoundTripper can.
type okBase struct{}

func (okBase) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: http.NoBody, Request: req}, nil
}

// The per-request policy costs no allocation: a request under PolicyFor or WithPolicy
// allocates exactly as many times as one under Transport.Policy whose context carries a
// value too (any context but Background costs the loop one mark; issue 17 item 4).
func TestPerRequestPolicyAllocations(t *testing.T) {
	p := &retry.Policy{Timeout: retry.NoLimit}
	allocs := func(tr *retryhttp.Transport, ctx context.Context) float64 {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://h.test/", nil)
		return testing.AllocsPerRun(200, func() {
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	type requestID struct{}
	ctx := context.WithValue(context.Background(), requestID{}, "r-1")
	base := allocs(&retryhttp.Transport{Base: okBase{}, Policy: p}, ctx)
	byFunc := allocs(&retryhttp.Transport{Base: okBase{}, PolicyFor: func(*http.Request) *retry.Policy { return p }}, ctx)
	byContext := allocs(&retryhttp.Transport{Base: okBase{}}, retryhttp.WithPolicy(ctx, p))
	if byFunc != base || byContext != base {
		t.Errorf("allocations a request: Policy %v, PolicyFor %v, WithPolicy %v; want all equal", base, byFunc, byContext)
	}
}

// With Budgets, each destination spends a retry budget of its own: a host failing every
// attempt drains its budget and stops with retry_budget_exhausted, while another host still
// gets its retry (issue 17 item 7, SPEC R8).
func TestBudgetPerDestination(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sick := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503}}})
		healthy := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503}, {Status: 200}}})
		group, err := budget.NewGroup(budget.GroupConfig{TokenBucket: &budget.TokenBucketConfig{MaxTokens: 4, TokenRatio: 1}})
		if err != nil {
			t.Fatal(err)
		}
		hosts := map[string]*retrytest.RoundTripper{"sick.test": sick, "healthy.test": healthy}
		base := roundTripperFunc(func(req *http.Request) (*http.Response, error) { return hosts[req.URL.Host].RoundTrip(req) })
		c := &http.Client{Transport: &retryhttp.Transport{Base: base, Policy: constant(t, time.Second, 5, time.Minute), Budgets: group}}

		// 4 tokens: failures take one each, a retry needs more than 2 left.
		for i, want := range []int{2, 1} {
			before := sick.Requests()
			_, err := c.Get("http://sick.test/")
			if stop := stopOf(t, err); stop.Reason != retry.ReasonRetryBudgetExhausted || sick.Requests()-before != want {
				t.Fatalf("sick GET %d: %v after %d requests; want retry_budget_exhausted after %d", i+1, err, sick.Requests()-before, want)
			}
		}
		resp, err := c.Get("http://healthy.test/")
		if err != nil || resp.StatusCode != 200 || healthy.Requests() != 2 {
			t.Fatalf("healthy GET: %v, %d requests; want 200 after 2 (its own budget)", err, healthy.Requests())
		}
		readAll(t, resp)
		if group.Len() != 2 {
			t.Errorf("group keeps %d budgets, want 2", group.Len())
		}
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// OnDecision gets the records of a request, with its method and redacted URL, and the
// request's own context (issue 17 item 5).
func TestOnDecisionGetsRequestContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type requestID struct{}
		rt := scripted(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503}, {Status: 200}}})
		p := constant(t, time.Second, 3, time.Minute)
		var got []string
		p.OnDecision = func(ctx context.Context, d retry.Decision) {
			got = append(got, ctx.Value(requestID{}).(string)+" "+attr(d, "method")+" "+attr(d, "url")+" "+string(d.Reason))
		}
		ctx := context.WithValue(context.Background(), requestID{}, "r-9")
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://pricing.test/price?token=s3cret", nil)
		resp, err := (&http.Client{Transport: &retryhttp.Transport{Base: rt, Policy: p}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, resp)
		want := "[r-9 GET http://pricing.test/price?token=REDACTED retryable_status r-9 GET http://pricing.test/price?token=REDACTED success]"
		if s := fmtStrings(got); s != want {
			t.Errorf("hook saw %s\nwant %s", s, want)
		}
	})
}

func fmtStrings(s []string) string { return "[" + strings.Join(s, " ") + "]" }
