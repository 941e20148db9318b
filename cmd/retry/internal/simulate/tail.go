package simulate

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
)

// The tail model ("The Tail at Scale", Dean and Barroso, CACM 2013): requests arrive
// evenly at Rate; every attempt, a hedge included, takes a service time drawn on its own:
// lognormal with a mean of 5 ms and σ 0.5, plus, for 1 % of attempts, a pause uniform in
// 200-1,000 ms (a garbage collection, a flush, a queue behind a slow request). The server
// has no capacity limit: hedging changes the latency and the load, not the service time. A
// canceled attempt ends at once. Each row runs twice: steady, and with a brownout, every
// attempt started in the middle third of the run ten times slower.
const (
	tailMeanMs      = 5.0
	tailSigma       = 0.5
	tailPauseShare  = 0.01
	tailPauseMinMs  = 200.0
	tailPauseMaxMs  = 1000.0
	tailBrownout    = 10.0
	tailStep        = time.Second
	tailBudgetShare = 0.02 // ours: the paper's 2 %
)

// tailRow is one row of the tail scenario: a name, a summary for the setup, and the policy
// every request runs (the gates in it shared by all requests: one client process).
type tailRow struct {
	name   string
	policy func(sm *sim) (*retry.Policy, error)
}

// tailRows are ours, the references (no hedging; the best fixed hedge, at the true 98th
// percentile, without a budget) and the peers' documented defaults. Ours keeps the default
// retry budget, which counts every hedge as a retry; the others have none but their own
// (Finagle's).
func tailRows() []tailRow {
	plain := func(h retry.Hedger) func(*sim) (*retry.Policy, error) {
		return func(*sim) (*retry.Policy, error) { return &retry.Policy{Hedge: h, Budget: retry.NoBudget}, nil }
	}
	return []tailRow{
		{"retry (ours): adaptive, 2% hedge budget", func(*sim) (*retry.Policy, error) {
			h, err := newOurHedger()
			return &retry.Policy{Hedge: h}, err
		}},
		{"no hedging", plain(nil)},
		{"a fixed hedge at the true p98, no budget", func(*sim) (*retry.Policy, error) {
			h, err := fixedHedger(tailQuantile(0.98), retry.None)
			return &retry.Policy{Hedge: h, Budget: retry.NoBudget}, err
		}},
		{"failsafe-go: quantile 0.95, age 30, after 20", func(*sim) (*retry.Policy, error) {
			return &retry.Policy{Hedge: newFailsafeHedger(0.95, 30, 20), Budget: retry.NoBudget}, nil
		}},
		{"Polly v8: 2 s, 1 hedge", func(*sim) (*retry.Policy, error) {
			h, err := fixedHedger(2*time.Second, retry.None)
			return &retry.Policy{Hedge: h, Budget: retry.NoBudget}, err
		}},
		{"Finagle: maxExtraLoad 1%", func(sm *sim) (*retry.Policy, error) {
			// The backup budget of the filter, and the client's retry budget (Finagle's
			// default: 20 % of requests plus 10 retries a second, over 10 s): both must
			// allow.
			return &retry.Policy{Hedge: newFinagleHedger(sm, 0.01), Budget: newSimBudget(sm, 0.2, 100, 10*time.Second)}, nil
		}},
		{"gRPC A6: hedgingDelay left out, maxAttempts 2", func(*sim) (*retry.Policy, error) {
			h, err := fixedHedger(time.Nanosecond, retry.None) // "all sent out at the same time"
			return &retry.Policy{Hedge: h, Budget: retry.NoBudget}, err
		}},
	}
}

func tail(o Options) (*Report, error) {
	duration := time.Duration(float64(o.Clients) / o.Rate * float64(time.Second))
	r := &Report{Scenario: o.Scenario, Seed: o.Seed,
		Setup: fmt.Sprintf("%d requests arrive evenly at %.0f/s over %v; each attempt takes a lognormal service time "+
			"(mean %.0f ms, σ %.1f) plus, for %.0f%% of attempts, a pause uniform in %.0f-%.0f ms; a canceled attempt ends at once; "+
			"the brownout run makes every attempt started in the middle third %.0fx slower; the server has no capacity limit",
			o.Clients, o.Rate, duration, tailMeanMs, tailSigma, tailPauseShare*100, tailPauseMinMs, tailPauseMaxMs, tailBrownout),
		Columns: []Column{
			{Key: "p50_ms", Meaning: "median request latency (arrival to the answer used)", Decimals: 1},
			{Key: "p99_ms", Meaning: "99th percentile request latency", Decimals: 1},
			{Key: "p999_ms", Meaning: "99.9th percentile request latency", Decimals: 1},
			{Key: "extra_pct", Meaning: "requests sent beyond one per request (hedges), in percent", Decimals: 2},
			{Key: "brownout_p999_ms", Meaning: "p99.9 of the requests that arrived during the brownout", Decimals: 1},
			{Key: "brownout_extra_pct", Meaning: "extra requests of those, in percent", Decimals: 2},
		},
	}
	for _, row := range tailRows() {
		steady, ld, events, err := tailRun(o, row, false)
		if err != nil {
			return nil, fmt.Errorf("simulate: tail, %s: %w", row.name, err)
		}
		brown, _, brownEvents, err := tailRun(o, row, true)
		if err != nil {
			return nil, fmt.Errorf("simulate: tail, %s, brownout: %w", row.name, err)
		}
		r.Events += events + brownEvents
		r.addRow(row.name, steady.p50, steady.p99, steady.p999, steady.extra, brown.p999, brown.extra)
		r.Load = append(r.Load, ld.series(row.name, 1))
	}
	tailChecks(r)
	return r, nil
}

// tailResult is what one run found: latencies in milliseconds, extra requests in percent,
// of all requests or, in a brownout run, of those that arrived during it.
type tailResult struct {
	p50, p99, p999, extra float64
}

// tailRun simulates row's policy, steady or with the brownout.
func tailRun(o Options, row tailRow, brownout bool) (tailResult, *load, int64, error) {
	sm := &sim{limit: 100 * int64(o.Clients)}
	ld := newLoad(tailStep)
	p, err := row.policy(sm)
	if err == nil {
		p.Random = backoff.NewSource(uint64(o.Seed))
		err = p.Validate()
	}
	if err != nil {
		return tailResult{}, nil, 0, err
	}
	spacing := time.Duration(float64(time.Second) / o.Rate)
	duration := time.Duration(o.Clients) * spacing
	slowFrom, slowTo := time.Duration(-1), time.Duration(-1)
	if brownout {
		slowFrom, slowTo = duration/3, 2*duration/3
	}
	var latencies []time.Duration
	counted, attempts := 0, 0
	for i := range o.Clients {
		arrival := time.Duration(i) * spacing
		inBrownout := arrival >= slowFrom && arrival < slowTo
		sm.after(arrival, func() {
			k := 0 // the request's attempts so far: each draws its own service time
			startHedgedLoop(sm, p, func(retry.Step) (time.Duration, retry.Outcome) {
				ld.add(sm.now)
				slow := 1.0
				if sm.now >= slowFrom && sm.now < slowTo {
					slow = tailBrownout
				}
				runs := time.Duration(tailServiceMs(o.Seed, i, k) * slow * float64(time.Millisecond))
				k++
				if !brownout || inBrownout {
					attempts++
				}
				return runs, retry.Outcome{}
			}, func(retry.Decision) {
				if !brownout || inBrownout {
					latencies = append(latencies, sm.now-arrival)
					counted++
				}
			})
		})
	}
	if err := sm.run(); err != nil {
		return tailResult{}, nil, 0, err
	}
	slices.Sort(latencies)
	return tailResult{
		p50: ms(quantile(latencies, 0.50)), p99: ms(quantile(latencies, 0.99)), p999: ms(quantile(latencies, 0.999)),
		extra: 100 * float64(attempts-counted) / float64(max(counted, 1)),
	}, ld, sm.events, nil
}

// tailServiceMs is the service time, in milliseconds, of attempt k of request i under seed:
// the same for every row, so that the rows differ only in what they send.
func tailServiceMs(seed int64, i, k int) float64 {
	u := func(n uint64) float64 { return tailUniform(seed, i, k, n) }
	z := math.Sqrt(-2*math.Log(1-u(0))) * math.Cos(2*math.Pi*u(1)) // Box-Muller
	t := math.Exp(tailMu() + tailSigma*z)
	if u(2) < tailPauseShare {
		t += tailPauseMinMs + (tailPauseMaxMs-tailPauseMinMs)*u(3)
	}
	return t
}

// tailMu is the lognormal's μ for a mean of tailMeanMs: mean = exp(μ + σ²/2).
func tailMu() float64 { return math.Log(tailMeanMs) - tailSigma*tailSigma/2 }

// tailUniform is draw n of attempt k of request i under seed, uniform in [0, 1): SplitMix64
// over the four, so that a draw depends on nothing else.
func tailUniform(seed int64, i, k int, n uint64) float64 {
	x := uint64(seed)
	for _, v := range []uint64{uint64(i), uint64(k), n} {
		x = splitmix(x ^ splitmix(v+0x9e3779b97f4a7c15))
	}
	return float64(x>>11) / (1 << 53)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// tailQuantile is the true q-quantile of one attempt's service time, to a microsecond, from
// the model's distribution (bisection on its cumulative distribution function).
func tailQuantile(q float64) time.Duration {
	cdf := func(ms float64) float64 {
		ln := func(x float64) float64 { // the lognormal's CDF
			if x <= 0 {
				return 0
			}
			return 0.5 * math.Erfc(-(math.Log(x)-tailMu())/(tailSigma*math.Sqrt2))
		}
		// The pause part: P(LN + U ≤ ms), U uniform in [min, max], by the midpoint rule.
		const steps = 400
		paused := 0.0
		for s := range steps {
			u := tailPauseMinMs + (tailPauseMaxMs-tailPauseMinMs)*(float64(s)+0.5)/steps
			paused += ln(ms-u) / steps
		}
		return (1-tailPauseShare)*ln(ms) + tailPauseShare*paused
	}
	lo, hi := 0.0, tailPauseMaxMs*10
	for hi-lo > 1e-3 {
		if mid := (lo + hi) / 2; cdf(mid) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return time.Duration(hi * float64(time.Millisecond)).Round(time.Microsecond)
}

// tailChecks states the figures this scenario was built to show (the paper's among them)
// and whether the rows reproduce them.
func tailChecks(r *Report) {
	const ours, none, best = 0, 1, 2
	v := func(row int, key string) float64 { return r.Rows[row].Metrics[key] }
	const madeFor = "lognormal 5 ms, σ 0.5, 1% pauses of 200-1,000 ms (the defaults)"
	r.check("without hedging, p99.9 is about 926 ms", madeFor, math.Abs(v(none, "p999_ms")-926) <= 0.1*926,
		"%.1f ms (expected within 10%% of 926)", v(none, "p999_ms"))
	r.check("the best possible hedge, at p98, gives about 23 ms for 2% extra", madeFor,
		math.Abs(v(best, "p999_ms")-23) <= 3 && math.Abs(v(best, "extra_pct")-2) <= 0.3,
		"p99.9 %.1f ms with %.2f%% extra (expected 23 ± 3 ms, 2 ± 0.3%%)", v(best, "p999_ms"), v(best, "extra_pct"))
	r.check("ours, adaptive with a 2% hedge budget, gives p99.9 ≤ 30 ms with ≤ 2.0% extra", madeFor,
		v(ours, "p999_ms") <= 30 && v(ours, "extra_pct") <= 2.0,
		"p99.9 %.1f ms with %.2f%% extra", v(ours, "p999_ms"), v(ours, "extra_pct"))
	gain := v(none, "p999_ms") / v(ours, "p999_ms")
	r.check("ours cuts p99.9 by more than the paper's 24x (1,800 ms to 74 ms)", madeFor, gain > 24,
		"%.0fx (%.1f ms without hedging, %.1f ms with)", gain, v(none, "p999_ms"), v(ours, "p999_ms"))
	r.check("in a brownout (every attempt 10x slower), ours sends ≤ 2% extra", madeFor+", the middle third of the run 10x slower",
		v(ours, "brownout_extra_pct") <= 2.0, "%.2f%% extra during the brownout", v(ours, "brownout_extra_pct"))
}
