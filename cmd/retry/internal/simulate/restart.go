package simulate

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
)

// The restart model (issue 21, a rolling restart): operations arrive at a steady rate,
// spread round-robin over the client processes, and each attempt goes to one of
// restartEndpoints endpoints picked at random (a client-side balancer). From restartStart, a
// fifth of the endpoints are restarting for the scenario's outage time (default 30 s): they
// refuse connections, which the client learns in restartRefusal, and the attempt never
// reached a server (retry.Outcome.NeverReached). The other endpoints answer in
// serverLatency. The rows differ in the budget: the default, none, the default charged for
// refused connections as for any failure, a 10% ratio budget (package budget's Ratio, no
// floor) free of them and charged for them, and the AWS SDK's quota, which charges them.
const (
	restartStart     = 10 * time.Second
	restartAfter     = 20 * time.Second
	restartEndpoints = 10
	restartDown      = 2 // endpoints 0 and 1 restart: a fifth
	restartRefusal   = time.Millisecond
)

// restartRow is one row of the restart scenario: a policy row, and whether a refused
// connection is reported as one that never reached a server.
type restartRow struct {
	policyRow
	neverReached bool
}

func restartRows() []restartRow {
	zero := func(_ *sim, random backoff.Source) (*retry.Policy, error) { return &retry.Policy{Random: random}, nil }
	ratio := func(sm *sim, random backoff.Source) (*retry.Policy, error) {
		return &retry.Policy{Random: random, Budget: newSimBudget(sm, budgetRatio, 0, budgetWindow)}, nil
	}
	return []restartRow{
		{policyRow{name: "zero Policy (default budget)", policy: zero}, true},
		{policyRow{name: "zero Policy, NoBudget", policy: func(_ *sim, random backoff.Source) (*retry.Policy, error) {
			return &retry.Policy{Random: random, Budget: retry.NoBudget}, nil
		}}, true},
		{policyRow{name: "default budget, refusals charged", policy: zero}, false},
		{policyRow{name: "10% budget", policy: ratio}, true},
		{policyRow{name: "10% budget, refusals charged", policy: ratio}, false},
		{policyRow{name: "aws-sdk-go-v2 v1.48.0 (charges refusals)", policy: peerPolicy("aws-sdk-go-v2 v1.48.0")}, false},
	}
}

func restart(o Options) (*Report, error) {
	r := &Report{Scenario: o.Scenario, Seed: o.Seed,
		Setup: fmt.Sprintf("%.0f operations/s spread over %d clients; each attempt goes to one of %d endpoints at random "+
			"(%v a request); from t=%v, %d of them refuse connections for %v (a rolling restart), which a client learns in %v",
			o.Rate, o.Clients, restartEndpoints, serverLatency, restartStart, restartDown, o.Outage, restartRefusal),
		Columns: []Column{
			{Key: "failed_calls", Meaning: "operations that failed, of those arriving during the restart"},
			{Key: "failed_share", Meaning: "failed_calls divided by the operations arriving during the restart", Decimals: 4},
			{Key: "attempts_per_op", Meaning: "attempts (connections tried) per operation arriving during the restart", Decimals: 3},
			{Key: "budget_refusals", Meaning: "retries the budget refused, all operations"},
			{Key: "p99_ms", Meaning: "99th percentile operation latency, all operations"},
		},
	}
	for _, row := range restartRows() {
		values, ld, events, err := restartRun(o, row)
		if err != nil {
			return nil, fmt.Errorf("simulate: restart, %s: %w", row.name, err)
		}
		r.Events += events
		r.addRow(row.name, values...)
		r.Load = append(r.Load, ld.series(row.name, 1))
	}
	failed := func(i int) float64 { return r.Rows[i].Values[0] }
	const withBudget, without = 0, 1
	r.check("compared with no budget, the default budget adds no failed call during a rolling restart",
		"a fifth of the endpoints refusing connections, which cost the budget nothing", failed(withBudget) == failed(without),
		"%.0f failed calls with the default budget, %.0f without one", failed(withBudget), failed(without))
	return r, nil
}

// restartRun simulates row and returns its values, its load and the number of events.
func restartRun(o Options, row restartRow) ([]float64, *load, int64, error) {
	end := restartStart + o.Outage
	arrivals := int((end + restartAfter).Seconds() * o.Rate)
	sm := &sim{limit: 1000 * int64(arrivals)}
	ld := newLoad(outageStep)
	policies, err := row.clientPolicies(o, sm)
	if err != nil {
		return nil, nil, 0, err
	}
	// The balancer's picks: one random stream per operation, so that every row sends the
	// same operation's attempts to the same endpoints.
	pick := func(op, attempt int) int {
		return rand.New(rand.NewPCG(uint64(o.Seed), uint64(op)<<8|uint64(attempt))).IntN(restartEndpoints)
	}
	spacing := time.Duration(float64(time.Second) / o.Rate)
	var latencies []time.Duration
	var during, failed, attemptsDuring, refusals int
	var arrive func(j int)
	arrive = func(j int) { // one arrival at a time, so that the event queue holds only what is in flight
		if j+1 < arrivals {
			sm.after(time.Duration(j+1)*spacing-sm.now, func() { arrive(j + 1) })
		}
		at := sm.now
		inRestart := at >= restartStart && at < end
		if inRestart {
			during++
		}
		attempt := 0
		startLoop(sm, policies[j%len(policies)], false, time.Time{}, func(_ time.Time, reply func(retry.Outcome)) {
			attempt++
			if inRestart {
				attemptsDuring++
			}
			if e := pick(j, attempt); e < restartDown && sm.now >= restartStart && sm.now < end {
				out := retry.Outcome{Err: errRefused, NeverReached: row.neverReached}
				sm.after(restartRefusal, func() { reply(out) })
				return
			}
			ld.add(sm.now)
			sm.after(serverLatency, func() { reply(retry.Outcome{Status: 200}) })
		}, func(d retry.Decision) {
			latencies = append(latencies, sm.now-at)
			if d.Reason == retry.ReasonRetryBudgetExhausted {
				refusals++
			}
			if d.Reason != retry.ReasonSuccess && inRestart {
				failed++
			}
		})
	}
	sm.after(0, func() { arrive(0) })
	if err := sm.run(); err != nil {
		return nil, nil, 0, err
	}
	slices.Sort(latencies)
	n := float64(max(during, 1))
	return []float64{float64(failed), float64(failed) / n, float64(attemptsDuring) / n, float64(refusals),
		ms(quantile(latencies, 0.99))}, ld, sm.events, nil
}

// errRefused is a refused connection.
var errRefused = errors.New("simulate: connection refused by a restarting endpoint")
