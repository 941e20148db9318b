package retryhttp

import (
	"context"

	"github.com/retrykit/retry"
)

// policyKey is the context key of a request's own policy.
type policyKey struct{}

// WithPolicy returns a copy of ctx under which a request sent through a [Transport] is
// retried under p instead of the Transport's policy (Transport.PolicyFor and
// Transport.Policy), with the destination's breaker and budget when the Transport has
// Breakers or Budgets. A nil p removes a policy set by an outer WithPolicy. p is read, never
// written; do not change it while requests use it. Use it with http.NewRequestWithContext:
//
//	ctx := retryhttp.WithPolicy(ctx, &retry.Policy{AttemptTimeout: 800 * time.Millisecond})
//	req, err := http.NewRequestWithContext(ctx, "GET", pricingURL, nil)
func WithPolicy(ctx context.Context, p *retry.Policy) context.Context {
	return context.WithValue(ctx, policyKey{}, p)
}

// policyFrom returns the policy WithPolicy put in ctx; nil when none.
func policyFrom(ctx context.Context) *retry.Policy {
	p, _ := ctx.Value(policyKey{}).(*retry.Policy)
	return p
}
