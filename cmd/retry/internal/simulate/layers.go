package simulate

import (
	"fmt"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
)

// The layers model (SPEC R7.3; the Google SRE book, "Addressing Cascading Failures"):
// requests arrive evenly over the first second at the top of a stack of three layers, each
// a retry loop of 4 attempts (3 retries) whose attempt is a call to the layer below; the
// bottom layer calls a service that fails every request with 503 after layerLatency.
// Inner loops run inside an attempt of the loop above, as retry.InLoop reports in a
// process, and inherit its deadline.
const (
	layerCount    = 3
	layerAttempts = 4
	layerLatency  = 5 * time.Millisecond
	layerBase     = 10 * time.Millisecond
	layerCap      = time.Second
	layerStep     = 250 * time.Millisecond
)

var layerPolicies = []struct {
	name   string
	nested retry.Nested
}{
	{"4 attempts at every layer", retry.NestedRetry},
	{"same, Nested: NestedSingleAttempt", retry.NestedSingleAttempt},
}

func layers(o Options) (*Report, error) {
	r := &Report{Scenario: o.Scenario, Seed: o.Seed,
		Setup: fmt.Sprintf("%d requests over 1s enter %d nested layers, each retrying with %d attempts "+
			"(exponential base %v cap %v, full jitter); the bottom service fails every call",
			o.Clients, layerCount, layerAttempts, layerBase, layerCap),
		Columns: []Column{
			{Key: "bottom_calls_per_request", Meaning: "calls reaching the failing service per top-level request", Decimals: 1},
			{Key: "layer2_calls_per_request", Meaning: "calls from the top layer to the middle layer per request", Decimals: 1},
			{Key: "p50_ms", Meaning: "median time until the top layer gave up"},
			{Key: "p99_ms", Meaning: "99th percentile of the same"},
		},
	}
	strategy, err := backoff.New(backoff.Config{Kind: backoff.Exponential, Base: layerBase, Max: layerCap})
	if err != nil {
		return nil, err
	}
	for _, lp := range layerPolicies {
		sm := &sim{}
		ld := newLoad(layerStep)
		var bottom, middle int
		var latencies []time.Duration
		for i := range o.Clients {
			p := &retry.Policy{MaxAttempts: layerAttempts, Backoff: strategy, Nested: lp.nested,
				Random: backoff.NewSource(uint64(o.Seed) + uint64(i)), Budget: retry.NoBudget}
			// call returns the attempt function of layer n: a call to layer n+1, or to the
			// service below the last layer.
			var call func(n int) func(time.Time, func(retry.Outcome))
			call = func(n int) func(time.Time, func(retry.Outcome)) {
				return func(deadline time.Time, reply func(retry.Outcome)) {
					if n == layerCount {
						bottom++
						ld.add(sm.now)
						sm.after(layerLatency, func() { reply(retry.Outcome{Status: 503}) })
						return
					}
					if n == 1 {
						middle++
					}
					startLoop(sm, p, true, deadline, call(n+1), func(d retry.Decision) {
						reply(layerOutcome(d))
					})
				}
			}
			at := time.Duration(i) * time.Second / time.Duration(o.Clients)
			sm.after(at, func() {
				startLoop(sm, p, false, time.Time{}, call(1), func(retry.Decision) {
					latencies = append(latencies, sm.now-at)
				})
			})
		}
		if err := sm.run(); err != nil {
			return nil, err
		}
		r.Events += sm.events
		sortDurations(latencies)
		n := float64(o.Clients)
		r.addRow(lp.name, float64(bottom)/n, float64(middle)/n, ms(quantile(latencies, 0.5)), ms(quantile(latencies, 0.99)))
		r.Load = append(r.Load, ld.series(lp.name, 1))
	}
	bottom := func(i int) float64 { return r.Rows[i].Values[0] }
	const anySize = "any number of requests, a bottom service that always fails"
	r.check("three layers of 4 attempts make 64 calls at the bottom", anySize, bottom(0) == 64, "%.1f calls per request", bottom(0))
	r.check("with nested-loop awareness only the top layer retries: 4 calls", anySize, bottom(1) == 4, "%.1f calls per request", bottom(1))
	return r, nil
}

// layerOutcome is what a layer reports to the layer above when its loop stops: success, or
// the same retryable failure (a 503) that it saw.
func layerOutcome(d retry.Decision) retry.Outcome {
	if d.Reason == retry.ReasonSuccess {
		return retry.Outcome{Status: 200}
	}
	return retry.Outcome{Status: 503}
}
