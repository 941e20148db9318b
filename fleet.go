package retry

import "time"

// FleetReporter is implemented by circuit breakers and retry budgets that a fleet of
// processes shares through a store (package fleet's). A loop whose Policy.Breaker or
// Policy.Budget implements it puts the fleet view's age, or its staleness, in every decision
// record (fleet_age_ms, fleet_stale; DESIGN's record section), so an operator can tell a
// fleet-wide decision from a local-only one.
type FleetReporter interface {
	// FleetStatus returns, at now, the age of the fleet view decisions are made with (ok
	// false when there has never been one) and stale true when the store is out of reach and
	// decisions are local only. It must not block, should not allocate, and must be safe for
	// concurrent use: every loop that shares the breaker or budget calls it.
	FleetStatus(now time.Time) (age time.Duration, ok, stale bool)
}

// fleetStatus puts the fleet status of p's breaker, else of its budget, in d. When both
// report, the older view and either staleness win.
func fleetStatus(d *Decision, p *Policy, now time.Time) {
	d.FleetAge, d.HasFleetAge, d.FleetStale = 0, false, false
	for _, x := range [2]any{p.Breaker, p.Budget} {
		r, isReporter := x.(FleetReporter)
		if !isReporter {
			continue
		}
		age, ok, stale := r.FleetStatus(now)
		if ok && (!d.HasFleetAge || age > d.FleetAge) {
			d.FleetAge, d.HasFleetAge = age, true
		}
		d.FleetStale = d.FleetStale || stale
	}
}
