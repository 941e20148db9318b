// Package simulate is the herd simulator behind `retry simulate` (SPEC R8): a deterministic
// discrete-event simulation, on virtual time and seeded, of many clients whose retry loops
// ask the same retry.Decide that the library's executor asks, against a simulated server.
// It shows what jitter, retry budgets, circuit breakers and layered retries do to the load on
// a server, and checks the published figures it reproduces.
//
// Scenarios:
//   - contention: N clients update one row with optimistic concurrency (the AWS
//     Architecture Blog's "Exponential Backoff And Jitter"), per jitter kind;
//   - outage: steady arrivals, a server that fails everything for a while and then recovers
//     with a fixed capacity, per retry policy (the Google SRE book, "Handling Overload");
//   - layers: three layers that each retry, against a failing bottom service, with and
//     without nested-loop awareness (SPEC R7.3; SRE book, "Addressing Cascading Failures");
//   - herd: clients all told Retry-After: 1 at the same moment, with and without the spread
//     Policy.RetryAfterSpread adds on top of a server-requested wait;
//   - fleet: replicas of a service each with a local circuit breaker, alone or sharing a
//     fleet breaker (package fleet), against an outage (fleet.go);
//   - restart: a rolling restart, a fifth of the endpoints refusing connections, with and
//     without the default retry budget (restart.go);
//   - tail: requests whose attempts are now and then very slow, with and without hedged
//     requests, ours and the peers' (Dean and Barroso, "The Tail at Scale"; tail.go);
//   - ratelimit: a burst of calls against a server that publishes its rate limit, through
//     the LLM SDKs' own loop alone, over ours, ours alone and the peers' (ratelimit.go),
//     and spread over replicas, each with its own gate or sharing a fleet gate
//     (ratefleet.go).
//
// Nothing here reads the real clock or sleeps: a run at the defaults takes well under a
// second of real time, a herd at its most a few seconds.
package simulate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Scenarios lists the scenario names Options.Scenario accepts.
var Scenarios = []string{"contention", "outage", "layers", "herd", "fleet", "restart", "tail", "ratelimit"}

// clientCounts are each scenario's default and most clients. The most keeps a run within
// a few seconds of real time: contention's conflicts grow with the square of the herd
// (3000 clients take 20 s, 30000 do not settle), layers makes 64 calls a request.
var clientCounts = map[string]struct{ def, most int }{
	"contention": {100, 1000},
	"outage":     {10, 100_000},
	"layers":     {100, 10_000},
	"herd":       {2000, 100_000},
	"fleet":      {100, 10_000},
	"restart":    {10, 100_000},
	"tail":       {100_000, 1_000_000},
	"ratelimit":  {200, 10_000},
}

// Clients returns scenario's default number of clients and the most Options.Clients
// accepts for it; ok is false for an unknown scenario.
func Clients(scenario string) (def, most int, ok bool) {
	c, ok := clientCounts[scenario]
	return c.def, c.most, ok
}

// ErrInvalidOptions is matched (errors.Is) by every error of [Run] and [Simulate] that
// comes from a bad Options value, so a command line can tell a usage error from a failure to
// write the chart.
var ErrInvalidOptions = errors.New("simulate: invalid options")

// ErrClaimDoesNotHold is returned by [Run] with Options.Check, after the whole report is
// written, when a check of the report does not hold at these settings.
var ErrClaimDoesNotHold = errors.New("a claim does not hold here")

// optionsError is a bad Options value: its message names the value and what is allowed,
// and it matches ErrInvalidOptions without repeating its text.
type optionsError struct{ msg string }

func (e *optionsError) Error() string        { return e.msg }
func (e *optionsError) Is(target error) bool { return target == ErrInvalidOptions }

func invalid(format string, args ...any) error {
	return &optionsError{msg: fmt.Sprintf(format, args...)}
}

// Options selects a scenario and its output. The zero value of every field but Scenario
// means the default stated on it.
type Options struct {
	// Scenario is "contention", "outage", "layers", "herd", "fleet", "restart", "tail" or
	// "ratelimit".
	Scenario string
	// JSON writes the report as one JSON object instead of a text table.
	JSON bool
	// SVG, when not empty, is the file to write the load chart to (created or truncated).
	SVG string
	// Seed makes the run reproducible: simulated client i draws its jitter from
	// backoff.NewSource(Seed+i); network and arrival noise come from Seed too. The same
	// Options give the same report, byte for byte.
	Seed int64
	// Clients is the number of clients: contending clients in contention (default 100),
	// client processes sharing the arrivals (each with its own budget and breaker) in outage
	// and restart (default 10), top-level requests in layers (default 100), clients told Retry-After in
	// herd (default 2000), replicas in fleet (default 100), requests in tail (default
	// 100000), calls made at once in ratelimit (default 200). It must be from 1 to the
	// scenario's most (see [Clients]).
	Clients int
	// Runs is how many independent runs contention averages over (default 20); the other
	// scenarios run once. It must be at least 1.
	Runs int
	// Rate is the arrival rate in operations per second of outage and restart (default 100),
	// fleet (default 30) and tail (requests, default 1000).
	Rate float64
	// Outage is how long the server of outage and fleet fails every request (default 20 s),
	// and how long the endpoints of restart refuse connections (default 30 s).
	Outage time.Duration
	// Capacity is how many requests per second the server of outage and herd serves after it
	// recovers (default 120 for outage, 1000 for herd); requests beyond it are refused with
	// 503. In ratelimit it is the server's published limit, a whole number of requests per
	// 1 s window (default 50), beyond which it answers 429.
	Capacity float64
	// Check makes [Run] return ErrClaimDoesNotHold when a check does not hold (for CI).
	Check bool
	// Peers, in contention, outage and herd, replaces the scenario's own rows with the documented
	// default policies of other retry libraries and ours (see [PeerSources]), run by the same
	// clients on the same seeds.
	Peers bool
}

// Report is what a scenario found: one row per policy, the checks of the published figures
// it reproduces, and the load on the server over time.
type Report struct {
	Scenario string   `json:"scenario"`
	Seed     int64    `json:"seed"`
	Setup    string   `json:"setup"` // the model and its parameters, in one sentence
	Columns  []Column `json:"columns"`
	Rows     []Row    `json:"rows"`
	Checks   []Check  `json:"checks"`
	// Capacity is the server's capacity in requests per second, 0 when it has none.
	Capacity float64 `json:"capacity_per_s,omitempty"`
	// Load is the server's load over time, one series per row, in the rows' order.
	Load []Series `json:"load"`
	// Events is how many simulation events (arrivals, replies, wake-ups after a wait) the
	// report took, all rows and runs together: a measure of the work behind it.
	Events int64 `json:"events"`
}

// Column names a metric of the rows; Key is also its JSON name and table header.
type Column struct {
	Key      string `json:"key"`
	Meaning  string `json:"meaning"`
	Decimals int    `json:"-"`
}

// Row is one policy's metrics: Values in the order of Report.Columns, Metrics by key.
type Row struct {
	Policy  string             `json:"policy"`
	Values  []float64          `json:"-"`
	Metrics map[string]float64 `json:"metrics"`
}

// Check is one published claim and whether this run reproduces it. A claim is made for a
// particular setup (MadeFor): at other settings it may not hold, which says something about
// the claim, not that the simulator is broken.
type Check struct {
	Claim   string `json:"claim"`
	MadeFor string `json:"made_for"`
	Holds   bool   `json:"holds"`
	Detail  string `json:"detail"`
}

// Verdict is how the text report states c's result: "holds" or "does not hold here".
func (c Check) Verdict() string {
	if c.Holds {
		return "holds"
	}
	return "does not hold here"
}

// Failed returns the checks of r that do not hold.
func (r *Report) Failed() []Check {
	var failed []Check
	for _, c := range r.Checks {
		if !c.Holds {
			failed = append(failed, c)
		}
	}
	return failed
}

// Series is the load on the server over time under one policy.
type Series struct {
	Policy string `json:"policy"`
	// Step is the width of a bucket in seconds; Rate[k] is the mean request rate (per second)
	// during [k×Step, (k+1)×Step).
	Step float64   `json:"step_s"`
	Rate []float64 `json:"rate_per_s"`
}

// Run simulates opts.Scenario and writes its report to w (text, or JSON with opts.JSON),
// and the load chart to opts.SVG when set. Invalid options return an error naming the value
// and what is allowed (matching ErrInvalidOptions), before anything is written; write errors
// are returned as they come. With opts.Check, a check that does not hold gives an error
// matching ErrClaimDoesNotHold once everything is written.
func Run(w io.Writer, opts Options) error {
	r, err := Simulate(opts)
	if err != nil {
		return err
	}
	if opts.SVG != "" {
		if err := writeChart(r, opts.SVG); err != nil {
			return err
		}
	}
	if opts.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	} else {
		err = r.writeText(w)
	}
	if err != nil {
		return err
	}
	if failed := r.Failed(); opts.Check && len(failed) > 0 {
		claims := make([]string, len(failed))
		for i, c := range failed {
			claims[i] = fmt.Sprintf("%q", c.Claim)
		}
		return fmt.Errorf("%w: %s", ErrClaimDoesNotHold, strings.Join(claims, "; "))
	}
	return nil
}

// Simulate validates opts and runs its scenario, ignoring the output fields (JSON, SVG).
func Simulate(opts Options) (*Report, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	switch o.Scenario {
	case "contention":
		return contention(o)
	case "outage":
		return outage(o)
	case "herd":
		return herd(o)
	case "fleet":
		return fleetScenario(o)
	case "restart":
		return restart(o)
	case "tail":
		return tail(o)
	case "ratelimit":
		return rateScenario(o)
	default:
		return layers(o)
	}
}

func (o Options) withDefaults() (Options, error) {
	if !slices.Contains(Scenarios, o.Scenario) {
		return o, invalid("unknown scenario %q: allowed are %s", o.Scenario, strings.Join(Scenarios, ", "))
	}
	switch {
	case o.Peers && (o.Scenario == "layers" || o.Scenario == "fleet" || o.Scenario == "restart" || o.Scenario == "tail" ||
		o.Scenario == "ratelimit"):
		return o, invalid("peers compares default policies in the contention, outage and herd scenarios, not in %s", o.Scenario)
	case o.Clients < 0:
		return o, invalid("clients %d is invalid: use a count of 1 or more, or 0 for the default", o.Clients)
	case o.Runs < 0:
		return o, invalid("runs %d is invalid: use a count of 1 or more, or 0 for the default", o.Runs)
	case o.Rate < 0 || o.Rate != o.Rate:
		return o, invalid("rate %v is invalid: use a positive number of operations per second, or 0 for the default", o.Rate)
	case o.Outage < 0:
		return o, invalid("outage %v is invalid: use a positive duration, or 0 for the default", o.Outage)
	case o.Capacity < 0 || o.Capacity != o.Capacity:
		return o, invalid("capacity %v is invalid: use a positive number of requests per second, or 0 for the default", o.Capacity)
	case o.Clients > clientCounts[o.Scenario].most:
		return o, invalid("clients %d is too many for scenario %s: at most %d", o.Clients, o.Scenario, clientCounts[o.Scenario].most)
	case o.Runs > 1000:
		return o, invalid("runs %d is too many: at most 1000", o.Runs)
	case o.Rate > 100_000:
		return o, invalid("rate %v is too high: at most 100000 operations per second", o.Rate)
	case o.Outage > time.Hour:
		return o, invalid("outage %v is too long: at most 1h", o.Outage)
	}
	if o.Clients == 0 {
		o.Clients = clientCounts[o.Scenario].def
	}
	if o.Runs == 0 {
		o.Runs = 20
	}
	if o.Rate == 0 {
		o.Rate = 100
		switch o.Scenario {
		case "fleet":
			o.Rate = 30 // 0.3 calls a second per replica: each learns of an outage slowly alone
		case "tail":
			o.Rate = 1000
		}
	}
	if o.Outage == 0 {
		o.Outage = 20 * time.Second
		if o.Scenario == "restart" {
			o.Outage = 30 * time.Second // the restart's time
		}
	}
	if o.Capacity == 0 {
		switch o.Scenario {
		case "herd":
			o.Capacity = 1000
		case "ratelimit":
			o.Capacity = 50
		default:
			o.Capacity = 120
		}
	}
	return o, nil
}

// addRow appends a row whose values follow r.Columns.
func (r *Report) addRow(policy string, values ...float64) {
	m := make(map[string]float64, len(values))
	for i, v := range values {
		m[r.Columns[i].Key] = v
	}
	r.Rows = append(r.Rows, Row{Policy: policy, Values: values, Metrics: m})
}

// check appends a check of claim, made for the setup madeFor.
func (r *Report) check(claim, madeFor string, holds bool, format string, args ...any) {
	r.Checks = append(r.Checks, Check{Claim: claim, MadeFor: madeFor, Holds: holds, Detail: fmt.Sprintf(format, args...)})
}

func (r *Report) writeText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %s (seed %d): %s\n\n", r.Scenario, r.Seed, r.Setup)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "policy\t")
	for _, c := range r.Columns {
		fmt.Fprintf(tw, "%s\t", c.Key)
	}
	fmt.Fprintln(tw)
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t", row.Policy)
		for i, v := range row.Values {
			fmt.Fprintf(tw, "%.*f\t", r.Columns[i].Decimals, v)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	b.WriteString("\n")
	for _, c := range r.Columns {
		fmt.Fprintf(&b, "  %s: %s\n", c.Key, c.Meaning)
	}
	b.WriteString("\nchecks (each claim was made for the setup in parentheses; at other settings it may not hold):\n")
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "  [%s] %s (%s): %s\n", c.Verdict(), c.Claim, c.MadeFor, c.Detail)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
