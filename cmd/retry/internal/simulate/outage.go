package simulate

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/budget"
)

// The outage model: operations arrive at a steady rate, spread round-robin over the client
// processes; the server answers every request in serverLatency; it is healthy (with the
// capacity below) for outageStart, fails every request with 503 for the outage, and then
// recovers with a capacity of Capacity requests per second (a token bucket holding a tenth of
// a second's worth), refusing the excess with 503. Arrivals go on for outageAfter after the
// recovery; the run ends when every operation has ended.
const (
	outageStart   = 10 * time.Second
	outageAfter   = 30 * time.Second
	serverLatency = 20 * time.Millisecond
	outageStep    = time.Second
	outageBase    = time.Second
	outageCap     = 10 * time.Second
	budgetRatio   = 0.1
	budgetWindow  = 10 * time.Second
	breakerFails  = 3
	breakerOpen   = 5 * time.Second
)

// outagePolicy is one row of the outage scenario: a policy and the gates each client gets.
type outagePolicy struct {
	name     string
	attempts int
	jitter   backoff.Jitter
	budget   bool // a 10% Ratio budget
	quota    bool // the default budget (budget.Quota), the zero Policy's
	breaker  bool
}

var outagePolicies = []outagePolicy{
	{name: "no retry", attempts: 1, jitter: backoff.FullJitter},
	{name: "3 attempts, no jitter", attempts: 3, jitter: backoff.NoJitter},
	{name: "3 attempts, full jitter", attempts: 3, jitter: backoff.FullJitter},
	{name: "3 attempts, 10% budget", attempts: 3, jitter: backoff.FullJitter, budget: true},
	{name: "3 attempts, breaker", attempts: 3, jitter: backoff.FullJitter, breaker: true},
	{name: "3 attempts, default budget", attempts: 3, jitter: backoff.FullJitter, quota: true},
}

// row turns pol into a policy row: every client gets its own budget and breaker.
func (pol outagePolicy) row() policyRow {
	return policyRow{name: pol.name, policy: func(sm *sim, random backoff.Source) (*retry.Policy, error) {
		strategy, err := backoff.New(backoff.Config{Kind: backoff.Exponential, Base: outageBase, Max: outageCap, Jitter: pol.jitter})
		p := &retry.Policy{MaxAttempts: pol.attempts, Backoff: strategy, Random: random}
		switch {
		case pol.budget:
			p.Budget = newSimBudget(sm, budgetRatio, 0, budgetWindow)
		case !pol.quota:
			p.Budget = retry.NoBudget
		}
		if pol.breaker {
			p.Breaker = newSimBreaker(sm, breakerFails, breakerOpen)
		}
		return p, err
	}}
}

// policyRow is a row of a scenario: a name and the policy each client runs, built per client
// on the run's simulator (gates such as budgets and breakers are per client).
type policyRow struct {
	name   string
	policy func(sm *sim, random backoff.Source) (*retry.Policy, error)
	// ignoresRetryAfter: the clients do not read a Retry-After header (the herd scenario
	// then leaves it out of their outcomes).
	ignoresRetryAfter bool
}

// clientPolicies makes the row's policy for each of o.Clients clients, client i drawing
// from its own source (seed o.Seed + i), and validates each.
func (row policyRow) clientPolicies(o Options, sm *sim) ([]*retry.Policy, error) {
	policies := make([]*retry.Policy, o.Clients)
	for i := range policies {
		p, err := row.policy(sm, backoff.NewSource(uint64(o.Seed)+uint64(i)))
		if err == nil {
			err = p.Validate()
		}
		if err != nil {
			return nil, err
		}
		policies[i] = p
	}
	return policies, nil
}

// rows returns the rows to run: the peers' defaults with Options.Peers, else own.
func (o Options) rows(own []policyRow) []policyRow {
	if !o.Peers {
		return own
	}
	rows := make([]policyRow, len(peers))
	for i, p := range peers {
		rows[i] = policyRow{name: p.name, policy: p.policy, ignoresRetryAfter: !p.retryAfter}
	}
	return rows
}

func outage(o Options) (*Report, error) {
	r := &Report{Scenario: o.Scenario, Seed: o.Seed, Capacity: o.Capacity,
		Setup: fmt.Sprintf("%.0f operations/s spread over %d clients; the server (%v a request) fails every request "+
			"from t=%v for %v, then recovers with a capacity of %.0f requests/s",
			o.Rate, o.Clients, serverLatency, outageStart, o.Outage, o.Capacity),
		Columns: []Column{
			{Key: "amplification", Meaning: "server requests per operation, for the operations that arrived during the outage", Decimals: 2},
			{Key: "peak_over_capacity", Meaning: "the busiest second's requests divided by the capacity", Decimals: 2},
			{Key: "recovery_s", Meaning: "time from the end of the outage until the load stays within the capacity", Decimals: 0},
			{Key: "drain_s", Meaning: "time from recovery until the last operation that arrived before it ended", Decimals: 1},
			{Key: "p50_ms", Meaning: "median operation latency (arrival to success or give-up), all operations"},
			{Key: "p99_ms", Meaning: "99th percentile operation latency"},
			{Key: "success_share", Meaning: "share of all operations that succeeded", Decimals: 3},
		},
	}
	own := make([]policyRow, len(outagePolicies))
	for i, pol := range outagePolicies {
		own[i] = pol.row()
	}
	if o.Peers {
		r.Setup += "; each client runs a library's documented default policy"
	} else {
		r.Setup += fmt.Sprintf("; exponential backoff base %v cap %v; "+
			"budget: retries within %.0f%% of the attempts of the last %v, no floor, per client; breaker: opens after %d failures "+
			"in a row for %v, one trial call, per client, refusing at once; both on virtual time with the rules of packages budget "+
			"and breaker; default budget: the zero Policy's, %d retries per client (or a tenth of the last second's attempts), one back per success; "+
			"the other rows have no budget",
			outageBase, outageCap, budgetRatio*100, budgetWindow, breakerFails, breakerOpen, budget.DefaultQuotaRetries)
	}
	for _, row := range o.rows(own) {
		values, ld, events, err := outageRun(o, row)
		if err != nil {
			return nil, fmt.Errorf("simulate: outage, %s: %w", row.name, err)
		}
		r.Events += events
		r.addRow(row.name, values...)
		r.Load = append(r.Load, ld.series(row.name, 1))
	}
	if o.Peers {
		answeredLoadCheck(r)
	} else {
		outageChecks(r)
	}
	return r, nil
}

// outageRun simulates one policy and returns its row's values, its load and the number of
// events simulated.
func outageRun(o Options, row policyRow) ([]float64, *load, int64, error) {
	recovery := outageStart + o.Outage
	arrivals := int((recovery + outageAfter).Seconds() * o.Rate)
	// An operation takes a few events per attempt, and no default policy makes more than a
	// few dozen attempts: a thousand events an operation bounds a run that settles.
	sm := &sim{limit: 1000 * int64(arrivals)}
	ld := newLoad(outageStep)
	srv := &server{sim: sm, rate: o.Capacity, burst: max(1, o.Capacity/10), down: [2]time.Duration{outageStart, recovery}}

	policies, err := row.clientPolicies(o, sm)
	if err != nil {
		return nil, nil, 0, err
	}

	st := &outageState{sm: sm, srv: srv, ld: ld, recovery: recovery, policies: policies,
		arrivals: arrivals,
		spacing:  time.Duration(float64(time.Second) / o.Rate)}
	st.arriveFn = st.arrive
	sm.after(0, st.arriveFn)
	if err := sm.run(); err != nil {
		return nil, nil, 0, err
	}
	latencies := st.latencies
	sortDurations(latencies)
	peak := slices.Max(ld.counts) / outageStep.Seconds()
	return []float64{
		float64(st.outageCalls) / float64(max(st.outageOps, 1)),
		peak / o.Capacity,
		recoverySeconds(ld, recovery, o.Capacity),
		max(0, st.lastPreRecoveryEnd-recovery).Seconds(),
		ms(quantile(latencies, 0.50)),
		ms(quantile(latencies, 0.99)),
		float64(st.succeeded) / float64(len(latencies)),
	}, ld, sm.events, nil
}

// recoverySeconds is the time from recovery until the load stays within capacity: the
// start of the first whole second after recovery from which no second has more requests
// than the capacity.
func recoverySeconds(ld *load, recovery time.Duration, capacity float64) float64 {
	first := int((recovery + outageStep - 1) / outageStep) // the first whole second after recovery
	calm := len(ld.counts)
	for k := len(ld.counts) - 1; k >= first && ld.counts[k] <= capacity*outageStep.Seconds(); k-- {
		calm = k
	}
	return max(0, (time.Duration(calm)*outageStep - recovery).Seconds())
}

// outageState is one run of the outage model: the arrivals, the operations in flight and
// what they add up to.
type outageState struct {
	sm       *sim
	srv      *server
	ld       *load
	recovery time.Duration
	policies []*retry.Policy // one per client process

	arrivals, arrived int           // operations to start, and started so far
	spacing           time.Duration // between arrivals
	arriveFn          func()        // st.arrive, bound once
	free              []*outageOp   // operations that have ended, for reuse

	latencies              []time.Duration
	succeeded              int
	outageOps, outageCalls int
	lastPreRecoveryEnd     time.Duration
}

// arrive starts the next operation and schedules the arrival after it: arrivals are made one
// at a time, so the event queue holds only what is in flight.
func (st *outageState) arrive() {
	j := st.arrived
	st.arrived++
	if st.arrived < st.arrivals {
		st.sm.after(time.Duration(st.arrived)*st.spacing-st.sm.now, st.arriveFn)
	}
	op := st.newOp()
	op.at = st.sm.now
	op.inOutage = op.at >= outageStart && op.at < st.recovery
	if op.inOutage {
		st.outageOps++
	}
	startLoop(st.sm, st.policies[j%len(st.policies)], false, time.Time{}, op.attemptFn, op.finishFn)
}

func (st *outageState) newOp() *outageOp {
	if n := len(st.free); n > 0 {
		op := st.free[n-1]
		st.free = st.free[:n-1]
		return op
	}
	op := &outageOp{st: st}
	op.attemptFn, op.finishFn, op.replyFn = op.attempt, op.finish, op.replied
	return op
}

// outageOp is one operation of the outage model, with its callbacks bound once.
type outageOp struct {
	st       *outageState
	at       time.Duration // arrival
	inOutage bool          // arrived while the server was down
	status   int           // the answer of the attempt in flight
	reply    func(retry.Outcome)

	attemptFn func(time.Time, func(retry.Outcome))
	finishFn  func(retry.Decision)
	replyFn   func()
}

// attempt sends one request: the server decides its answer on arrival, which comes back
// after serverLatency.
func (op *outageOp) attempt(_ time.Time, reply func(retry.Outcome)) {
	st := op.st
	st.ld.add(st.sm.now)
	if op.inOutage {
		st.outageCalls++
	}
	op.status, op.reply = st.srv.serve(), reply
	st.sm.after(serverLatency, op.replyFn)
}

func (op *outageOp) replied() { op.reply(retry.Outcome{Status: op.status}) }

func (op *outageOp) finish(d retry.Decision) {
	st := op.st
	st.latencies = append(st.latencies, st.sm.now-op.at)
	if d.Reason == retry.ReasonSuccess {
		st.succeeded++
	}
	if op.at < st.recovery {
		st.lastPreRecoveryEnd = max(st.lastPreRecoveryEnd, st.sm.now)
	}
	op.reply = nil
	st.free = append(st.free, op)
}

// server is outage's server: down during [down[0], down[1]), otherwise limited to rate
// requests per second by a token bucket of burst tokens.
type server struct {
	sim         *sim
	rate, burst float64
	down        [2]time.Duration
	tokens      float64
	last        time.Duration
}

// serve answers a request arriving now with 200 or 503.
func (s *server) serve() int {
	if s.sim.now >= s.down[0] && s.sim.now < s.down[1] {
		return 503
	}
	s.tokens = min(s.burst, s.tokens+s.rate*(s.sim.now-s.last).Seconds())
	s.last = s.sim.now
	if s.tokens < 1 {
		return 503
	}
	s.tokens--
	return 200
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// outageChecks states the SRE book's figures ("Handling Overload") and whether the rows
// reproduce them.
func outageChecks(r *Report) {
	amp := func(i int) float64 { return r.Rows[i].Values[0] }
	const noRetry, plain, jittered, budgeted, broken = 0, 1, 2, 3, 4
	const book = "the SRE book's setting: a total outage, retries per client process"
	r.check("3 attempts per request give just below 3x in a total outage", book,
		amp(plain) >= 2.5 && amp(plain) < 3 && amp(jittered) >= 2.5 && amp(jittered) < 3,
		"%.2fx without jitter, %.2fx with full jitter (expected in [2.5, 3))", amp(plain), amp(jittered))
	r.check("a 10% per-client retry budget gives about 1.1x", book+", steady traffic of 10 operations/s or more per client",
		amp(budgeted) >= 1.05 && amp(budgeted) <= 1.15, "%.2fx (expected in [1.05, 1.15])", amp(budgeted))
	r.check("a circuit breaker sends fewer requests than no retry at all during the outage", book,
		amp(broken) < amp(noRetry), "breaker %.2fx, no retry %.2fx", amp(broken), amp(noRetry))
}

// answered is the share of its callers a library must answer for its load to be compared:
// the two thirds of an outage's operations that arrive while the server is up.
const answered = 2.0 / 3

// answeredLoadCheck states and checks the claim of our defaults in the outage against the
// peers': the lowest load per operation (amplification) of every library that answers at
// least two thirds of its callers, while answering at least two thirds of its own.
func answeredLoadCheck(r *Report) {
	ours := r.Rows[0].Metrics
	holds := ours["success_share"] >= answered-1e-9
	var compared, beaters []string
	for _, row := range r.Rows[1:] {
		if row.Metrics["success_share"] < answered-1e-9 {
			continue
		}
		compared = append(compared, fmt.Sprintf("%s %.3g", row.Policy, row.Metrics["amplification"]))
		if row.Metrics["amplification"] <= ours["amplification"] {
			holds = false
			beaters = append(beaters, row.Policy)
		}
	}
	detail := fmt.Sprintf("ours %.3g, answering %.3f; peers answering at least 2/3: %s", ours["amplification"],
		ours["success_share"], strings.Join(compared, ", "))
	if len(beaters) > 0 {
		detail += "; as low or lower: " + strings.Join(beaters, ", ")
	}
	r.check("our defaults give the lowest load per operation of every library that answers at least two thirds of its callers, "+
		"and answer at least two thirds of their own",
		"our defaults against the peers', outage scenario at these settings", holds, "%s", detail)
}
