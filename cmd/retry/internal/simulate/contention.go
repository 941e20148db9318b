package simulate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
)

// The contention model is the one of the AWS Architecture Blog's "Exponential Backoff And
// Jitter" (Marc Brooker, 2015): every client reads the row's version and then writes it
// conditionally; the write succeeds only when no other write came in between. Each of the
// four network legs of an attempt (read request, read response, write request, write
// response) takes |Normal(10 ms, 2 ms)|; backoff is exponential capped at 2 s. The blog's
// simulator has base 5 ms but counts retries from 1, so its ceilings are 10, 20, 40 ms...;
// Base 10 ms gives the same ceilings here (package backoff counts retries from 0). The one
// difference left: decorrelated jitter's floor is Base, 10 ms, where the blog's is 5 ms.
const (
	contentionBase  = 10 * time.Millisecond
	contentionCap   = 2 * time.Second
	netMean, netSD  = 10 * time.Millisecond, 2 * time.Millisecond
	contentionStep  = 25 * time.Millisecond
	contentionLimit = time.Hour // a client still retrying after this is a model error
)

var errConflict = errors.New("simulate: conditional write lost to a concurrent writer")

// strategies are contention's rows: exponential backoff with each jitter kind.
var strategies = []struct {
	name   string
	jitter backoff.Jitter
}{
	{"no jitter", backoff.NoJitter},
	{"full jitter", backoff.FullJitter},
	{"equal jitter", backoff.EqualJitter},
	{"decorrelated jitter", backoff.DecorrelatedJitter},
}

func contention(o Options) (*Report, error) {
	r := &Report{Scenario: o.Scenario, Seed: o.Seed,
		Setup: fmt.Sprintf("%d clients start at once and each updates one row with optimistic concurrency "+
			"(read the version, write if unchanged); network legs |N(10ms, 2ms)|; mean of %d runs", o.Clients, o.Runs),
		Columns: []Column{
			{Key: "calls", Meaning: "conditional writes sent to the server, all clients together (the blog's work)"},
			{Key: "completion_ms", Meaning: "virtual time until the last client's write succeeded (or, with --peers, until the last client gave up)"},
			{Key: "calls_per_client", Meaning: "calls divided by clients", Decimals: 2},
			{Key: "peak_per_s", Meaning: "the busiest 25 ms's writes, per second"},
			{Key: "success_share", Meaning: "share of the clients whose write went through", Decimals: 3},
		},
	}
	var own []policyRow
	for _, st := range strategies {
		strategy, err := backoff.New(backoff.Config{Kind: backoff.Exponential, Base: contentionBase, Max: contentionCap, Jitter: st.jitter})
		if err != nil {
			return nil, err
		}
		own = append(own, policyRow{name: st.name, policy: func(_ *sim, random backoff.Source) (*retry.Policy, error) {
			return &retry.Policy{MaxAttempts: retry.NoLimit, Timeout: contentionLimit, MaxWait: retry.NoLimit,
				Backoff: strategy, Random: random, Budget: retry.NoBudget}, nil
		}})
	}
	if o.Peers {
		r.Setup += "; each client runs a library's documented default policy, and may give up"
	} else {
		r.Setup += fmt.Sprintf("; exponential backoff base %v cap %v, retrying until the write succeeds", contentionBase, contentionCap)
	}
	for _, row := range o.rows(own) {
		ld := newLoad(contentionStep)
		var calls, completion, answered float64
		for run := range o.Runs {
			res, err := contentionRun(o, run, row, ld)
			if err != nil {
				return nil, fmt.Errorf("simulate: contention, %s: %w", row.name, err)
			}
			r.Events += res.events
			calls += float64(res.calls)
			completion += res.done.Seconds() * 1000
			answered += float64(res.answered)
		}
		n := float64(o.Runs)
		peak := slices.Max(ld.counts) / n / contentionStep.Seconds()
		r.addRow(row.name, calls/n, completion/n, calls/n/float64(o.Clients), peak, answered/n/float64(o.Clients))
		r.Load = append(r.Load, ld.series(row.name, o.Runs))
	}
	if o.Peers {
		peerChecks(r, []string{"calls_per_client"}, "success_share")
	} else {
		contentionChecks(r)
	}
	return r, nil
}

// contentionResult is what one contention run found.
type contentionResult struct {
	calls, answered int           // writes sent; clients whose write went through
	done            time.Duration // when the last client's loop ended
	events          int64
}

// contentionRun runs one simulation of row. Every row sees the same network draws for a
// given run (common random numbers), so differences between rows come from the policies.
// A client that gives up is a model error unless the rows are the peers', whose limits
// allow it.
func contentionRun(o Options, run int, row policyRow, ld *load) (res contentionResult, err error) {
	sm := &sim{}
	net := rand.New(rand.NewPCG(uint64(o.Seed), uint64(run)))
	leg := func() time.Duration {
		return time.Duration(math.Abs(float64(netMean) + float64(netSD)*net.NormFloat64()))
	}
	version := 0
	for i := range o.Clients {
		p, perr := row.policy(sm, backoff.NewSource(uint64(o.Seed)+uint64(run*o.Clients+i)))
		if perr != nil {
			return res, perr
		}
		attempt := func(_ time.Time, reply func(retry.Outcome)) {
			sm.after(leg(), func() { // the read reaches the server
				read := version
				sm.after(leg()+leg(), func() { // its answer returns; the write reaches the server
					res.calls++
					ld.add(sm.now)
					o := retry.Outcome{Err: errConflict}
					if read == version {
						version++
						o = retry.Outcome{}
					}
					sm.after(leg(), func() { reply(o) })
				})
			})
		}
		startLoop(sm, p, false, time.Time{}, attempt, func(d retry.Decision) {
			if d.Reason == retry.ReasonSuccess {
				res.answered++
			} else if !o.Peers && err == nil {
				err = fmt.Errorf("simulate: contention client %d stopped with %s", i, d.Reason)
			}
			res.done = max(res.done, sm.now)
		})
	}
	if runErr := sm.run(); runErr != nil {
		return res, runErr
	}
	res.events = sm.events
	return res, err
}

// contentionChecks states the blog's findings and whether the rows reproduce them.
func contentionChecks(r *Report) {
	calls := func(i int) float64 { return r.Rows[i].Values[0] }
	done := func(i int) float64 { return r.Rows[i].Values[1] }
	const none, full, equal, decorrelated = 0, 1, 2, 3
	worst := max(calls(full), calls(equal), calls(decorrelated))
	const blog = "the AWS blog's setup: 100 clients, mean of 20 runs"
	r.check("jitter cuts calls by more than half against un-jittered exponential backoff", blog,
		worst < calls(none)/2, "no jitter %.0f calls; full %.0f, equal %.0f, decorrelated %.0f (most: %.0f%% of no jitter)",
		calls(none), calls(full), calls(equal), calls(decorrelated), 100*worst/calls(none))
	r.check("full jitter does the least work", blog, calls(full) <= min(calls(none), calls(equal), calls(decorrelated)),
		"full %.0f calls; least of the others %.0f", calls(full), min(calls(none), calls(equal), calls(decorrelated)))
	r.check("decorrelated jitter finishes a little sooner than full jitter", blog, done(decorrelated) < done(full),
		"decorrelated %.0f ms, full %.0f ms", done(decorrelated), done(full))
}
