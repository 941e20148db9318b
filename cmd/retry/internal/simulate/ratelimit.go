package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/ratelimit"
)

// The ratelimit model (issue 32 item 9): Options.Clients calls start at once, as a service's
// burst does, against a server that admits Options.Capacity requests in each fixed window of
// rateWindow, and answers every request with its count in OpenAI's headers
// (x-ratelimit-limit-requests, -remaining-requests, -reset-requests: the requests left after
// it and the time to the window's end, from the request's arrival), with 429 Too Many
// Requests and no Retry-After when the window is full. The burst comes at a seeded point of
// a window; a request takes rateOneWay each way. The rows differ in the client: the SDKs'
// own loop alone; that loop over ours, as package retryhttp runs under it; our loop alone;
// and the peers' default policies.
const (
	rateWindow    = time.Second
	rateOneWay    = serverLatency / 2
	rateStep      = time.Second
	rateProbeWait = time.Second // ratelimit.Config.ProbeWait for the requests of an SDK
	rateMost      = 1_000_000   // the most Options.Capacity a window
)

// The SDKs' own loop with its defaults, the same in openai-go v3.100.0 and anthropic-sdk-go
// v1.84.0 (internal/sdktest/SDKS.md): 3 attempts; the wait before retry n (n = 0, 1) is
// Retry-After-Ms, else Retry-After (this server sends neither), else 0.5 s × 2^n, at most
// 8 s, less a random 0 to 25%. openai-go's cap of 2 min on a server's wait never binds here:
// ours asks for at most its deadline's 30 s.
const (
	sdkAttempts   = 3
	sdkBase       = 500 * time.Millisecond
	sdkMaxBackoff = 8 * time.Second
	sdkJitter     = 0.25
)

// rateRow is one row of the ratelimit scenario: the client stack of every call, and the
// replicas the calls are spread over, round robin.
type rateRow struct {
	name string
	sdk  bool // the SDK's own loop makes each call, over the replica's policy if it has one
	ours bool // our loop and rate gate: the rows the checks are about
	// replicas returns the replicas of one run on sm, their draws seeded from seed. The
	// rows here have one replica, a service making all the calls through one Transport; a
	// fleet row (issue 33) returns several, each with a local gate, whose gates may share
	// the fleet's view.
	replicas func(sm *sim, seed int64) ([]rateClient, error)
}

// rateClient is one replica: the loop under (or instead of) the SDK's, and its rate gate.
type rateClient struct {
	// policy runs the calls' loops: one Policy value a replica, so that its default retry
	// budget is per destination, as retryhttp keeps it. nil: the SDK alone.
	policy *retry.Policy
	// gate is policy's RateGate, told every answer's headers as retryhttp tells it. nil:
	// the client reads no rate-limit header, nor the reset of a 429 as a server's wait.
	gate   rateGate
	random backoff.Source // the SDK's backoff draws
	// fleet is the store a fleet row's replicas meet (the same for all of them); nil for a
	// replica alone.
	fleet *rateFleet
}

// rateGate is a rate gate that reads the server's headers: a ratelimit.Gate, or a gate
// that shares what it reads with a fleet (issue 33).
type rateGate interface {
	retry.RateGate
	Observe(now time.Time, readings []ratelimit.Reading)
}

// oneReplica returns the replicas of a row that makes every call through one replica.
func oneReplica(client func(sm *sim, random backoff.Source) (rateClient, error)) func(*sim, int64) ([]rateClient, error) {
	return func(sm *sim, seed int64) ([]rateClient, error) {
		c, err := client(sm, backoff.NewSource(uint64(seed)))
		if err != nil {
			return nil, err
		}
		if c.policy != nil {
			if err := c.policy.Validate(); err != nil {
				return nil, err
			}
		}
		return []rateClient{c}, nil
	}
}

// oursWithGate is our default policy with a rate gate of cfg.
func oursWithGate(cfg ratelimit.Config) func(*sim, backoff.Source) (rateClient, error) {
	return func(_ *sim, random backoff.Source) (rateClient, error) {
		gate, err := ratelimit.NewGate(cfg)
		return rateClient{policy: &retry.Policy{RateGate: gate, Random: random}, gate: gate, random: random}, err
	}
}

// ratePeers are the peers' default policies that apply to an HTTP API's 429: the AWS SDK's
// rows do not (it retries AWS's throttling error codes, and its adaptive mode is not
// modelled), nor does gRPC's.
var ratePeers = []string{"avast/retry-go", "cenkalti/backoff", "failsafe-go http", "go-retryablehttp"}

func rateRows() []rateRow {
	rows := []rateRow{
		{name: "openai-go, anthropic-sdk-go alone (2 retries)", sdk: true,
			replicas: oneReplica(func(_ *sim, random backoff.Source) (rateClient, error) { return rateClient{random: random}, nil })},
		{name: "the SDK over ours (gate, probe 1s)", sdk: true, ours: true,
			replicas: oneReplica(oursWithGate(ratelimit.Config{ProbeWait: rateProbeWait}))},
		{name: "retry (ours), gate", ours: true, replicas: oneReplica(oursWithGate(ratelimit.Config{}))},
		{name: "retry (ours), gate, probe 1s", ours: true,
			replicas: oneReplica(oursWithGate(ratelimit.Config{ProbeWait: rateProbeWait}))},
	}
	for _, name := range ratePeers {
		policy := peerPolicy(name)
		rows = append(rows, rateRow{name: name, replicas: oneReplica(func(sm *sim, random backoff.Source) (rateClient, error) {
			p, err := policy(sm, random)
			return rateClient{policy: p, random: random}, err
		})})
	}
	return append(rows, rateReplicaRows()...)
}

func rateScenario(o Options) (*Report, error) {
	if o.Capacity != math.Trunc(o.Capacity) || o.Capacity > rateMost {
		return nil, invalid("capacity %v is invalid for scenario ratelimit: the server's limit is a whole number of requests "+
			"per 1 s window, from 1 to %d", o.Capacity, rateMost)
	}
	phase := time.Duration(rand.New(rand.NewPCG(uint64(o.Seed), 32)).Int64N(int64(rateWindow)))
	r := &Report{Scenario: o.Scenario, Seed: o.Seed, Capacity: o.Capacity / rateWindow.Seconds(),
		Setup: fmt.Sprintf("%d calls at once, %v into a window of a server that admits %.0f requests per fixed %v window "+
			"and answers each with its count in OpenAI's headers (limit, remaining, reset), 429 without Retry-After when over "+
			"(%v each way); the SDK: openai-go's and anthropic-sdk-go's loop, %d attempts, 0.5 s × 2^n less up to 25%%, "+
			"Retry-After-Ms obeyed, X-Should-Retry obeyed, no rate-limit header read; ours: the default policy with a rate gate "+
			"per destination that reads every answer (the probe: ratelimit.Config.ProbeWait), under the SDK one attempt per "+
			"SDK attempt handed back as retryhttp does; the peers: their default policies",
			o.Clients, phase.Round(time.Millisecond), o.Capacity, rateWindow, rateOneWay, sdkAttempts),
		Columns: []Column{
			{Key: "successes", Meaning: "calls that succeeded"},
			{Key: "requests", Meaning: "requests that reached the server, 429s included"},
			{Key: "throttled", Meaning: "requests answered 429"},
			{Key: "finish_s", Meaning: "when the last call ended, in success or not, from the burst", Decimals: 2},
			{Key: "failed_429", Meaning: "calls that failed on the server's 429: their loop gave up (attempts, quota or time ran out)"},
			{Key: "failed_gate", Meaning: "calls our rate gate stopped at once, the quota coming back after their deadline " +
				"(rate_limit_exceeds_deadline, with the server's wait)"},
		},
	}
	rows := rateRows()
	for _, row := range rows {
		res, err := rateRun(o, row, phase)
		if err != nil {
			return nil, fmt.Errorf("simulate: ratelimit, %s: %w", row.name, err)
		}
		r.Events += res.events
		r.addRow(row.name, float64(res.successes), float64(res.srv.requests), float64(res.srv.throttled),
			res.finish.Seconds(), float64(res.failed429), float64(res.failedGate))
		load := res.srv.ld.series(row.name, 1)
		load.Rate = append(load.Rate, 0) // the fall to no load after the last request, which a single bucket would not draw
		r.Load = append(r.Load, load)
	}
	rateChecks(r, o, rows)
	rateFleetCheck(r, o)
	return r, nil
}

// rateResult is one run of a row.
type rateResult struct {
	srv                              *windowServer
	successes, failed429, failedGate int
	finish                           time.Duration // when the last call ended
	events                           int64
}

// rateRun starts o.Clients calls at time 0 with row's clients, and runs them to their end.
func rateRun(o Options, row rateRow, phase time.Duration) (*rateResult, error) {
	sm := &sim{}
	clients, err := row.replicas(sm, o.Seed)
	if err != nil {
		return nil, err
	}
	res := &rateResult{srv: &windowServer{sm: sm, limit: int64(o.Capacity), phase: phase, ld: newLoad(rateStep)}}
	if f := clients[0].fleet; f != nil {
		f.start(func() bool { return res.successes+res.failed429+res.failedGate < o.Clients })
	}
	for i := range o.Clients {
		c := &clients[i%len(clients)]
		switch {
		case row.sdk && c.policy == nil:
			sdkLoop(sm, c.random, func(_ int, reply func(response)) { res.srv.call(nil, reply) }, res.endSDK)
		case row.sdk:
			sdkLoop(sm, c.random, func(n int, reply func(response)) { c.transport(res.srv, n, reply) }, res.endSDK)
		default:
			startLoop(sm, c.policy, false, time.Time{}, func(_ time.Time, done func(retry.Outcome)) {
				res.srv.attempt(c.gate, func(_ int, out retry.Outcome) { done(out) })
			}, res.endLoop)
		}
	}
	if err := sm.run(); err != nil {
		return nil, err
	}
	res.events = sm.events
	return res, nil
}

// endSDK counts a call that the SDK's loop ended with resp.
func (res *rateResult) endSDK(resp response) { res.end(resp.status == 200, resp.stop) }

// endLoop counts a call that a library's loop ended with d.
func (res *rateResult) endLoop(d retry.Decision) { res.end(d.Reason == retry.ReasonSuccess, d.Reason) }

// end counts a call ended now, in success or by reason.
func (res *rateResult) end(success bool, reason retry.Reason) {
	res.finish = res.srv.sm.now
	switch {
	case success:
		res.successes++
	case reason == retry.ReasonRateLimitExceedsDeadline:
		res.failedGate++
	default:
		res.failed429++
	}
}

// windowServer is the ratelimit model's server: limit requests per fixed window, its
// windows starting phase before time 0.
type windowServer struct {
	sm                  *sim
	limit               int64
	phase               time.Duration
	window, count       int64 // the current window's number, and the requests admitted in it
	requests, throttled int
	ld                  *load
}

// serve admits or refuses a request arriving now, and returns its status and what its
// answer's headers say of the quota.
func (s *windowServer) serve() (status int, r ratelimit.Reading) {
	s.requests++
	s.ld.add(s.sm.now)
	at := s.sm.now + s.phase
	if k := int64(at / rateWindow); k != s.window {
		s.window, s.count = k, 0
	}
	status = 200
	if s.count < s.limit {
		s.count++
	} else {
		status = 429
		s.throttled++
	}
	reset := time.Duration(s.window+1)*rateWindow - at
	return status, ratelimit.Reading{Quota: "requests", Limit: s.limit, Remaining: s.limit - s.count, Reset: reset,
		From: "x-ratelimit-remaining-requests"}
}

// attempt sends a request now. Its answer, rateOneWay after the server's, goes to gate's
// Observe when there is a gate, then to done as the Outcome retryhttp makes of it: with a
// gate, the client is retryhttp, and a 429 whose remaining is 0 carries the reset as the
// server's wait (x-ratelimit-reset-requests); without one, the status alone.
func (s *windowServer) attempt(gate rateGate, done func(status int, out retry.Outcome)) {
	s.sm.after(rateOneWay, func() {
		status, reading := s.serve()
		s.sm.after(rateOneWay, func() {
			out := retry.Outcome{Status: status}
			if gate != nil {
				gate.Observe(s.sm.clock(), []ratelimit.Reading{reading})
				if status == 429 && reading.Remaining == 0 {
					out.RetryAfter, out.HasRetryAfter, out.RetryAfterFrom = reading.Reset, true, "x-ratelimit-reset-requests"
				}
			}
			done(status, out)
		})
	})
}

// call is attempt for a caller that reads the answer as an HTTP response.
func (s *windowServer) call(gate rateGate, reply func(response)) {
	s.attempt(gate, func(status int, _ retry.Outcome) { reply(response{status: status}) })
}

// response is an answer as the SDK's loop reads it: its status, and the headers it obeys
// that our Transport sets when it hands an answer back (retryhttp's handBack).
type response struct {
	status int
	// shouldRetry is X-Should-Retry: 1 true, -1 false, 0 absent.
	shouldRetry int
	// wait is Retry-After-Ms, 0 when absent.
	wait time.Duration
	// stop is the reason of our loop's decision, when our Transport answered.
	stop retry.Reason
}

// transport answers SDK attempt n (0 for the first) as retryhttp's Transport does for a
// request carrying X-Stainless-Retry-Count: n: a loop of ours that is attempt n+1 of the
// SDK's, whose attempt is a request, every answer read by the rate gate. The loop's
// decision is handed back as retryhttp's handBack does: a retry with X-Should-Retry: true
// and Retry-After-Ms when the server or the gate asks for a wait; a stop with
// X-Should-Retry: false, on a response of our own when nothing was sent (429 for the rate
// gate's stop, 503 for another).
func (c *rateClient) transport(s *windowServer, n int, reply func(response)) {
	status := 0
	startOuterLoop(s.sm, c.policy, n+1, func(_ time.Time, done func(retry.Outcome)) {
		s.attempt(c.gate, func(st int, out retry.Outcome) { status = st; done(out) })
	}, func(d retry.Decision) {
		resp := response{status: status, stop: d.Reason}
		switch {
		case d.Reason == retry.ReasonSuccess:
		case d.Retry:
			resp.shouldRetry, resp.wait = 1, d.Wait
		case d.NoAttempt:
			resp.status, resp.shouldRetry = 503, -1
			if d.Reason == retry.ReasonRateLimitExceedsDeadline || d.Reason == retry.ReasonRetryAfterExceedsMaxWait {
				resp.status = 429
			}
		default:
			resp.shouldRetry = -1
		}
		reply(resp)
	})
}

// sdkLoop makes one call through the SDK's own retry loop: attempt makes SDK attempt n (0
// for the first) and replies with its answer; done gets the answer the call ends with. A
// 200 ends it; X-Should-Retry: false ends it, true retries, else a 408, 409, 429 or 5xx
// retries while attempts are left, after Retry-After-Ms or the backoff drawn from random.
func sdkLoop(sm *sim, random backoff.Source, attempt func(n int, reply func(response)), done func(response)) {
	var try func(n int)
	try = func(n int) {
		attempt(n, func(resp response) {
			if resp.status == 200 || n+1 == sdkAttempts || !sdkRetries(resp) {
				done(resp)
				return
			}
			wait := resp.wait
			if wait == 0 {
				d := min(sdkBase<<n, sdkMaxBackoff)
				wait = d - time.Duration(sdkJitter*unitFloat(random)*float64(d))
			}
			sm.after(wait, func() { try(n + 1) })
		})
	}
	try(0)
}

// sdkRetries says whether the SDK's loop retries resp, attempts allowing.
func sdkRetries(resp response) bool {
	if resp.shouldRetry != 0 {
		return resp.shouldRetry > 0
	}
	s := resp.status
	return s == 408 || s == 409 || s == 429 || s >= 500
}

// unitFloat draws a number in [0, 1) from random.
func unitFloat(random backoff.Source) float64 { return float64(random.Uint64()>>11) / (1 << 53) }

// rateChecks states issue 32's target for ours under the SDK, and that no row of ours does
// worse than the SDK alone.
func rateChecks(r *Report, o Options, rows []rateRow) {
	const sdkAlone, underSDK = 0, 1
	m := func(i int, key string) float64 { return r.Rows[i].Metrics[key] }
	r.check(fmt.Sprintf("the SDK over ours: all %d calls succeed within 4.5 s, with at most 10 requests answered 429", o.Clients),
		"issue 32's target: 200 calls at once against 50 requests/s (the defaults)",
		m(underSDK, "successes") == float64(o.Clients) && m(underSDK, "finish_s") <= 4.5 && m(underSDK, "throttled") <= 10,
		"%.0f succeeded, the last call ended at %.2f s, %.0f requests answered 429",
		m(underSDK, "successes"), m(underSDK, "finish_s"), m(underSDK, "throttled"))
	var rowsOurs, worse []string
	for i, row := range rows {
		if !row.ours {
			continue
		}
		rowsOurs = append(rowsOurs, fmt.Sprintf("%s %.0f successes, %.0f requests", row.name, m(i, "successes"), m(i, "requests")))
		if m(i, "successes") < m(sdkAlone, "successes") || m(i, "requests") > m(sdkAlone, "requests") {
			worse = append(worse, row.name)
		}
	}
	detail := fmt.Sprintf("the SDK alone %.0f successes, %.0f requests; %s", m(sdkAlone, "successes"), m(sdkAlone, "requests"),
		strings.Join(rowsOurs, "; "))
	if len(worse) > 0 {
		detail += "; worse: " + strings.Join(worse, ", ")
	}
	r.check("ours is never worse than the SDK alone, in successes or in requests", "issue 32's target, at any settings",
		len(worse) == 0, "%s", detail)
}
