package retryhttp

import (
	"context"
	"reflect"

	"github.com/retrykit/retry"
)

// lookupKey marks the context a Transport gives its Reconciler; its value, a lookupGates,
// holds the circuit breaker and retry budget of the write being reconciled.
type lookupKey struct{}

type lookupGates struct {
	breaker retry.CircuitBreaker
	budget  retry.RetryBudget
}

// withLookup returns ctx marked as the context of a Reconciler's lookup of a write sent
// under policy p.
func withLookup(ctx context.Context, p *retry.Policy) context.Context {
	return context.WithValue(ctx, lookupKey{}, lookupGates{p.Breaker, p.Budget})
}

// pastGates returns p without the circuit breaker and retry budget of the write that a
// Reconciler's lookup reconciles, when ctx is the context the Reconciler got (or one made
// from it): the lookup must not be refused or counted by them, or it
// would compete with that write for a HALF_OPEN breaker's single trial call. Another
// destination's breaker and budget (Transport.Breakers, Budgets) still apply. For every
// other request it returns p itself.
func pastGates(ctx context.Context, p *retry.Policy) *retry.Policy {
	if p.Breaker == nil && p.Budget == nil {
		return p
	}
	write, isLookup := ctx.Value(lookupKey{}).(lookupGates)
	if !isLookup {
		return p
	}
	skipBreaker, skipBudget := same(p.Breaker, write.breaker), same(p.Budget, write.budget)
	if !skipBreaker && !skipBudget {
		return p
	}
	lookup := *p
	if skipBreaker {
		lookup.Breaker = nil
	}
	if skipBudget {
		lookup.Budget = retry.NoBudget
	}
	return &lookup
}

// same reports whether a and b are the same non-nil breaker or budget (values of a type
// that cannot be compared are never the same).
func same(a, b any) bool {
	if a == nil || b == nil {
		return false
	}
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}
