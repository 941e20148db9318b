package fleet

import (
	"math"
	"time"
)

// BudgetRule is how a store grants a budget group's retries (Exchange.Budget): over the
// window the fleet's retries, spent and granted, stay within Ratio × (the fleet's requests)
// + Floor. [Budget] fills it in from its BudgetConfig.
type BudgetRule struct {
	// Ratio is the share of the fleet's requests in the window that may be retries.
	Ratio float64
	// Floor is how many retries the fleet may make in any window whatever its traffic
	// (budget.RatioConfig's MinRetriesPerSecond × Window seconds).
	Floor float64
	// MinReplicas is the fewest replicas the budget is shared among (BudgetConfig.MinReplicas).
	MinReplicas int
	// GrantFor is how long a grant may be spent (Config.StaleAfter: after that the replica's
	// view is stale and its grant unused); an unrenewed grant stops counting then.
	GrantFor time.Duration
}

// Share is a replica's share of a fleet budget: (ownRequests + 1) / (fleetRequests +
// max(replicas, minReplicas, 1)), its own requests in the window weighing it, plus one so
// that a replica without requests yet has a share too. The shares of the replicas in the
// window add up to at most 1. Negative counts count as 0, ownRequests at most
// fleetRequests; the result is in (0, 1].
func Share(fleetRequests, ownRequests int64, replicas, minReplicas int) float64 {
	fleet := float64(max(fleetRequests, 0)) // in float64: the sums may pass the end of int64
	own := min(float64(max(ownRequests, 0)), fleet)
	return (own + 1) / (fleet + float64(max(replicas, minReplicas, 1)))
}

// Grant is the fleet budget's rule, as every store applies it: the retries one replica may
// spend until its next exchange. What the rule leaves in the window, left = rule.Ratio ×
// fleetRequests + rule.Floor − fleetRetries, is granted by [Share]: left × Share, but never
// more than left − others, others being what the other replicas hold granted and unspent,
// so that the grants and the retries spent never exceed the rule. A fractional grant is
// rounded up when u (uniform in [0, 1)) is below its fraction, and only within left −
// others. It is never negative: a rule that leaves nothing, or one that is NaN, gives 0;
// one beyond int64, math.MaxInt64.
func Grant(rule BudgetRule, fleetRequests, fleetRetries, others, ownRequests int64, replicas int, u float64) int64 {
	// The conversion rounds the product, so that no platform fuses it into the addition: the
	// Redis store's Lua computes the same figures, and must get the same grant.
	left := float64(rule.Ratio*float64(fleetRequests)) + rule.Floor - float64(fleetRetries)
	if !(left > 0) { // NaN too
		return 0
	}
	room := left - float64(max(others, 0))
	grant := min(left*Share(fleetRequests, ownRequests, replicas, rule.MinReplicas), room)
	if !(grant > 0) {
		return 0
	}
	if !(grant < math.MaxInt64) { // beyond int64, or +Inf
		return math.MaxInt64
	}
	whole, frac := math.Modf(grant)
	if u < frac && whole+1 <= room {
		whole++
	}
	return int64(whole)
}
