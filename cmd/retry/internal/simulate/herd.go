package simulate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
)

// The herd model (issue "Under load", a Retry-After herd): every client sends one request
// within the first herdStart; the server is overloaded for its first second and answers
// every request with 503 and Retry-After: 1, then serves Capacity requests per second (a
// token bucket holding a tenth of a second's worth) and answers the excess the same way.
// Each client runs this module's default policy; the rows differ only in
// Policy.RetryAfterSpread, the bounded random spread added on top of a server-requested wait.
const (
	herdStart      = 10 * time.Millisecond
	herdOverload   = time.Second
	herdRetryAfter = time.Second
	herdStep       = 100 * time.Millisecond
)

var herdSpreads = []struct {
	name   string
	spread float64
}{
	{"no spread (RetryAfterSpread None)", retry.None},
	{"default spread (as much again for 1 s, a tenth of a longer wait)", 0},
}

func herd(o Options) (*Report, error) {
	r := &Report{Scenario: o.Scenario, Seed: o.Seed, Capacity: o.Capacity,
		Setup: fmt.Sprintf("%d clients each send one request within the first %v; the server answers every request of its first %v "+
			"with 503 and Retry-After: 1, then serves %.0f requests/s and answers the excess the same way (%v a request); "+
			"every client runs the default policy (3 attempts, 30 s), the rows differ in RetryAfterSpread",
			o.Clients, herdStart, herdOverload, o.Capacity, serverLatency),
		Columns: []Column{
			{Key: "return_peak_per_100ms", Meaning: "the busiest 100 ms's requests from the end of the overload on"},
			{Key: "return_spread_ms", Meaning: "time between the first and the last second attempt"},
			{Key: "amplification", Meaning: "requests per client", Decimals: 2},
			{Key: "success_share", Meaning: "share of the clients answered with success", Decimals: 3},
		},
	}
	own := make([]policyRow, len(herdSpreads))
	for i, h := range herdSpreads {
		own[i] = policyRow{name: h.name, policy: func(_ *sim, random backoff.Source) (*retry.Policy, error) {
			return &retry.Policy{RetryAfterSpread: h.spread, Random: random}, nil
		}}
	}
	if o.Peers {
		r.Setup = strings.Replace(r.Setup, "every client runs the default policy (3 attempts, 30 s), the rows differ in RetryAfterSpread",
			"each client runs a library's documented default policy; those that do not read Retry-After do not see it", 1)
	}
	for _, row := range o.rows(own) {
		values, ld, events, err := herdRun(o, row)
		if err != nil {
			return nil, fmt.Errorf("simulate: herd, %s: %w", row.name, err)
		}
		r.Events += events
		r.addRow(row.name, values...)
		r.Load = append(r.Load, ld.series(row.name, 1))
	}
	if o.Peers {
		peerChecks(r, []string{"amplification"}, "success_share")
		return r, nil
	}
	const none, deflt = 0, 1
	peak := func(i int) float64 { return r.Rows[i].Values[0] }
	const madeFor = "2000 clients, a capacity of 1000 requests/s (the defaults)"
	r.check("the default spread at least halves the busiest 100 ms after the overload", madeFor, peak(deflt) <= peak(none)/2,
		"%.0f requests without the spread, %.0f with it", peak(none), peak(deflt))
	share := func(i int) float64 { return r.Rows[i].Values[3] }
	r.check("the default spread answers more clients", madeFor, share(deflt) > share(none),
		"%.3f without the spread, %.3f with it", share(none), share(deflt))
	return r, nil
}

// herdRun simulates the herd with every client running row's policy.
func herdRun(o Options, row policyRow) ([]float64, *load, int64, error) {
	sm := &sim{}
	ld := newLoad(herdStep)
	srv := &server{sim: sm, rate: o.Capacity, burst: max(1, o.Capacity/10), down: [2]time.Duration{0, herdOverload}}
	starts := rand.New(rand.NewPCG(uint64(o.Seed), 0))
	var requests, succeeded int
	var secondAttempts []time.Duration
	policies, err := row.clientPolicies(o, sm)
	if err != nil {
		return nil, nil, 0, err
	}
	for _, p := range policies {
		attempt := func(_ time.Time, reply func(retry.Outcome)) {
			requests++
			ld.add(sm.now)
			out := retry.Outcome{Status: srv.serve()}
			if out.Status != 200 && !row.ignoresRetryAfter {
				out.RetryAfter, out.HasRetryAfter = herdRetryAfter, true
			}
			sm.after(serverLatency, func() { reply(out) })
		}
		attempts := 0
		counted := func(deadline time.Time, reply func(retry.Outcome)) {
			if attempts++; attempts == 2 {
				secondAttempts = append(secondAttempts, sm.now)
			}
			attempt(deadline, reply)
		}
		sm.after(time.Duration(starts.Int64N(int64(herdStart))), func() {
			startLoop(sm, p, false, time.Time{}, counted, func(d retry.Decision) {
				if d.Reason == retry.ReasonSuccess {
					succeeded++
				}
			})
		})
	}
	if err := sm.run(); err != nil {
		return nil, nil, 0, err
	}
	returnPeak := 0.0
	if first := int(herdOverload / herdStep); first < len(ld.counts) {
		returnPeak = slices.Max(ld.counts[first:])
	}
	spreadMs := 0.0
	if len(secondAttempts) > 0 {
		spreadMs = ms(slices.Max(secondAttempts) - slices.Min(secondAttempts))
	}
	n := float64(o.Clients)
	return []float64{returnPeak, spreadMs, float64(requests) / n, float64(succeeded) / n}, ld, sm.events, nil
}
