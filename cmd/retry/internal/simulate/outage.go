package simulate

import (
	"fmt"
	"slices"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
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
	budget   bool
	breaker  bool
}

var outagePolicies = []outagePolicy{
	{name: "no retry", attempts: 1, jitter: backoff.FullJitter},
	{name: "3 attempts, no jitter", attempts: 3, jitter: backoff.NoJitter},
	{name: "3 attempts, full jitter", attempts: 3, jitter: backoff.FullJitter},
	{name: "3 attempts, 10% budget", attempts: 3, jitter: backoff.FullJitter, budget: true},
	{name: "3 attempts, breaker", attempts: 3, jitter: backoff.FullJitter, breaker: true},
}

func outage(o Options) (*Report, error) {
	r := &Report{Scenario: o.Scenario, Seed: o.Seed, Capacity: o.Capacity,
		Setup: fmt.Sprintf("%.0f operations/s spread over %d clients; the server (%v a request) fails every request "+
			"from t=%v for %v, then recovers with a capacity of %.0f requests/s; exponential backoff base %v cap %v; "+
			"budget: retries within %.0f%% of the attempts of the last %v, no floor, per client; breaker: opens after %d failures "+
			"in a row for %v, one trial call, per client; both on virtual time with the rules of packages budget and breaker",
			o.Rate, o.Clients, serverLatency, outageStart, o.Outage, o.Capacity, outageBase, outageCap,
			budgetRatio*100, budgetWindow, breakerFails, breakerOpen),
		Columns: []Column{
			{Key: "amplification", Meaning: "server requests per operation, for the operations that arrived during the outage", Decimals: 2},
			{Key: "peak_over_capacity", Meaning: "the busiest second's requests divided by the capacity", Decimals: 2},
			{Key: "drain_s", Meaning: "time from recovery until the last operation that arrived before it ended", Decimals: 1},
			{Key: "p50_ms", Meaning: "median operation latency (arrival to success or give-up), all operations"},
			{Key: "p99_ms", Meaning: "99th percentile operation latency"},
			{Key: "success_share", Meaning: "share of all operations that succeeded", Decimals: 3},
		},
	}
	for _, pol := range outagePolicies {
		row, ld, events, err := outageRun(o, pol)
		if err != nil {
			return nil, err
		}
		r.Events += events
		r.addRow(pol.name, row...)
		r.Load = append(r.Load, ld.series(pol.name, 1))
	}
	outageChecks(r)
	return r, nil
}

// outageRun simulates one policy and returns its row's values, its load and the number of
// events simulated.
func outageRun(o Options, pol outagePolicy) ([]float64, *load, int64, error) {
	strategy, err := backoff.New(backoff.Config{Kind: backoff.Exponential, Base: outageBase, Max: outageCap, Jitter: pol.jitter})
	if err != nil {
		return nil, nil, 0, err
	}
	sm := &sim{}
	ld := newLoad(outageStep)
	recovery := outageStart + o.Outage
	srv := &server{sim: sm, rate: o.Capacity, burst: max(1, o.Capacity/10), down: [2]time.Duration{outageStart, recovery}}

	policies := make([]*retry.Policy, o.Clients)
	for i := range policies {
		p := &retry.Policy{MaxAttempts: pol.attempts, Backoff: strategy, Random: backoff.NewSource(uint64(o.Seed) + uint64(i))}
		if pol.budget {
			p.Budget = newSimBudget(sm, budgetRatio, 0, budgetWindow)
		}
		if pol.breaker {
			p.Breaker = newSimBreaker(sm, breakerFails, breakerOpen)
		}
		if err := p.Validate(); err != nil {
			return nil, nil, 0, err
		}
		policies[i] = p
	}

	st := &outageState{sm: sm, srv: srv, ld: ld, recovery: recovery, policies: policies,
		arrivals: int((recovery + outageAfter).Seconds() * o.Rate),
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
		max(0, st.lastPreRecoveryEnd-recovery).Seconds(),
		ms(quantile(latencies, 0.50)),
		ms(quantile(latencies, 0.99)),
		float64(st.succeeded) / float64(len(latencies)),
	}, ld, sm.events, nil
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
	r.check("3 attempts per request give just below 3x in a total outage",
		amp(plain) >= 2.5 && amp(plain) < 3 && amp(jittered) >= 2.5 && amp(jittered) < 3,
		"%.2fx without jitter, %.2fx with full jitter (expected in [2.5, 3))", amp(plain), amp(jittered))
	r.check("a 10% per-client retry budget gives about 1.1x",
		amp(budgeted) >= 1.05 && amp(budgeted) <= 1.15, "%.2fx (expected in [1.05, 1.15])", amp(budgeted))
	r.check("a circuit breaker sends fewer requests than no retry at all during the outage",
		amp(broken) < amp(noRetry), "breaker %.2fx, no retry %.2fx", amp(broken), amp(noRetry))
}
