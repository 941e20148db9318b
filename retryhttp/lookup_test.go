package retryhttp_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// countingBudget admits every retry and records what it is told.
type countingBudget struct {
	mu   sync.Mutex
	done []retry.Result
}

func (b *countingBudget) AllowRetry() bool { return true }
func (b *countingBudget) Done(_ bool, r retry.Result) {
	b.mu.Lock()
	b.done = append(b.done, r)
	b.mu.Unlock()
}

// Issue 17 item 3, the case the issue saw: the breaker is HALF_OPEN and its single trial
// call is a POST without a key, which the server applies before the connection drops. The
// Reconciler looks the order up through the same client. The lookup is neither refused nor
// counted by the write's breaker and budget: it finds the order, the write is Applied, and
// the success closes the breaker. Before, the lookup was refused circuit_open, the outcome
// stayed unknown and the service answered 502 for an order that exists.
func TestReconcilerLookupPassesTheWritesBreakerAndBudget(t *testing.T) {
	for _, perHost := range []bool{false, true} {
		name := map[bool]string{false: "Policy.Breaker and Budget", true: "Breakers per host"}[perHost]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt, err := retrytest.NewRoutedRoundTripper(retrytest.Routes{
					"POST orders.test/orders":   {Steps: []retrytest.Step{{Action: retrytest.Drop}}},
					"GET orders.test/orders/42": {Steps: []retrytest.Step{{Status: 200, Body: "order 42"}}},
				})
				if err != nil {
					t.Fatal(err)
				}
				cfg := breaker.Config{ConsecutiveFailures: 1, OpenTimeout: time.Second}
				budget := &countingBudget{}
				policy := &retry.Policy{MaxAttempts: 3, Budget: budget}
				tr := &retryhttp.Transport{Base: rt, Policy: policy}
				var b retry.CircuitBreaker
				if perHost {
					group, err := breaker.NewGroup(breaker.GroupConfig{Breaker: cfg})
					if err != nil {
						t.Fatal(err)
					}
					tr.Breakers = group
					b = group.Breaker("http://orders.test:80")
				} else {
					policy.Breaker, _ = breaker.New(cfg)
					b = policy.Breaker
				}
				token, _, _ := b.Allow() // an earlier failure opened the breaker a second ago
				b.Done(token, retry.ResultFailure)
				time.Sleep(time.Second)

				client := &http.Client{Transport: tr}
				var lookupErr error
				tr.Reconcile = func(ctx context.Context, req *http.Request, _ *http.Response, _ error) (retryhttp.Resolution, *http.Response) {
					lookup, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://orders.test/orders/42", nil)
					resp, err := client.Do(lookup)
					if lookupErr = err; err != nil {
						return retryhttp.StillUnknown, nil
					}
					return retryhttp.Applied, resp
				}
				resp, err := client.Post("http://orders.test/orders", "application/json", nil)
				if err != nil {
					t.Fatalf("POST: %v (the lookup's error: %v)", err, lookupErr)
				}
				if got := readAll(t, resp); got != "order 42" {
					t.Errorf("body %q, want the lookup's %q", got, "order 42")
				}
				if s := b.(*breaker.Breaker).State(); s != breaker.StateClosed {
					t.Errorf("breaker %v after the trial write was applied, want CLOSED", s)
				}
				if want := []retry.Result{retry.ResultSuccess}; len(budget.done) != 1 || budget.done[0] != want[0] {
					t.Errorf("the budget was told %v, want %v: the write only", budget.done, want)
				}
				if n := len(rt.Received()); n != 2 {
					t.Errorf("%d requests, want 2: the write and the lookup", n)
				}
			})
		})
	}
}

// Outside a Reconciler, the same client's requests still face the breaker: a GET while the
// HALF_OPEN trial is in flight is refused.
func TestOnlyLookupsPassTheBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := scripted(t, retrytest.Script{})
		b, _ := breaker.New(breaker.Config{ConsecutiveFailures: 1, OpenTimeout: time.Second})
		token, _, _ := b.Allow()
		b.Done(token, retry.ResultFailure)
		time.Sleep(time.Second)
		trial, _, _ := b.Allow() // HALF_OPEN's single trial, in flight
		defer b.Done(trial, retry.ResultSuccess)
		_, err := (&retryhttp.Transport{Base: rt, Policy: &retry.Policy{Breaker: b}}).RoundTrip(request(t, "GET", "http://orders.test/orders/42", ""))
		if !errors.Is(err, retry.ErrCircuitOpen) || len(rt.Received()) != 0 {
			t.Errorf("err %v after %d requests, want circuit_open and none sent", err, len(rt.Received()))
		}
	})
}
