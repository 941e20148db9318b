package retryhttp_test

import (
	"errors"
	"testing"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/budget"
	"github.com/retrykit/retry/fleet"
	"github.com/retrykit/retry/retryhttp"
	"github.com/retrykit/retry/retrytest"
)

// A nil *breaker.Group or *budget.Group in Breakers or Budgets (a group made only when
// configured) means no group, as when the field was a *breaker.Group: the policy's own
// breaker and budget apply, and nothing panics on the typed nil inside the interface.
func TestNilGroupsMeanNone(t *testing.T) {
	for _, breakers := range []retryhttp.BreakerGroup{(*breaker.Group)(nil), (*fleet.BreakerGroup)(nil)} {
		srv := server(t, retrytest.Script{Steps: []retrytest.Step{{Status: 503}}})
		own, err := breaker.New(breaker.Config{ConsecutiveFailures: 1})
		if err != nil {
			t.Fatal(err)
		}
		policy := fast(t, 3)
		policy.Breaker = own
		c := client(t, &retryhttp.Transport{Policy: policy, Breakers: breakers, Budgets: (*budget.Group)(nil)})
		_, err = c.Get(srv.URL)
		if !errors.Is(err, retry.ErrCircuitOpen) || srv.Requests() != 1 {
			t.Fatalf("GET with Breakers %T(nil): %v after %d requests, want circuit_open after 1 (the policy's own breaker)", breakers, err, srv.Requests())
		}
		if got := own.State(); got != breaker.StateOpen {
			t.Errorf("Breakers %T(nil): the policy's breaker is %v, want OPEN", breakers, got)
		}
	}
}
