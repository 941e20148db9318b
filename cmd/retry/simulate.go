package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/retrykit/retry/cmd/retry/internal/simulate"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// defaultSimulateSeed is simulate's seed when --seed is not given, so that the same flags
// always print the same report.
const defaultSimulateSeed = 1

func newSimulateCommand() *cobra.Command {
	var opts simulate.Options
	var replicas int
	cmd := &cobra.Command{
		Use:   "simulate --scenario contention|outage|layers|herd|fleet|restart|tail|ratelimit [--peers] [--check] [--json] [--svg FILE] [--seed N]",
		Short: "Simulate a herd of clients retrying against a server: a table per policy and a chart",
		Long: `simulate runs a deterministic discrete-event simulation (virtual time, seeded) of many
clients whose retry loops ask the same decision function as retry http and retry run,
against a simulated server, and prints one row per policy, then whether the published
figures it reproduces hold:

  contention  N clients (--clients, default 100) update one row with optimistic
              concurrency, per jitter kind: total calls and completion time
              (AWS Architecture Blog, "Exponential Backoff And Jitter")
  outage      steady arrivals (--rate, default 100/s); the server fails everything for
              --outage (default 20s), then recovers with --capacity (default 120/s);
              per policy: amplification, peak load over capacity, time until the load
              is back within capacity, time to drain, p50/p99 latency, success share
              (Google SRE book, "Handling Overload")
  layers      three layers that each make 4 attempts, with and without nested-loop
              awareness (Policy.Nested): calls at the bottom per request
  herd        N clients (default 2000) all told Retry-After: 1 by an overloaded server
              that then serves --capacity (default 1000/s), with and without the
              spread Policy.RetryAfterSpread adds: load per 100 ms, success share
  fleet       N replicas (--replicas, default 100) sharing --rate calls/s (default
              30/s) meet an --outage (default 20s), each with a local circuit breaker
              (3 failures), alone or sharing a fleet breaker (retry http --fleet):
              failed calls the sick service receives, time until every replica stops,
              trial calls per open timeout
  restart     steady arrivals (--rate, default 100/s) over 10 endpoints, a fifth of
              which refuse connections for --outage (default 30s), a rolling restart;
              with and without the default retry budget, and with budgets charged for
              refused connections: failed calls, attempts per call, budget refusals
  tail        N requests (default 100000) at --rate (default 1000/s) whose attempts
              take 5 ms on average, and 200-1000 ms for 1% of them, with hedged
              requests (ours: adaptive, 2% budget) and without, beside the peers'
              defaults (failsafe-go, Polly, Finagle, gRPC's A6), steady and in a
              brownout (10x slower): p50/p99/p99.9 latency, extra requests
              (Dean and Barroso, "The Tail at Scale")
  ratelimit   N calls at once (default 200) against a server that admits --capacity
              requests per fixed 1 s window (default 50) and tells its count on every
              answer in OpenAI's headers (429 when over, no Retry-After): the LLM SDKs'
              own loop alone (openai-go, anthropic-sdk-go: 2 retries), that loop over
              ours (a rate gate per destination, the probe on), ours alone with and
              without the probe, the peers' defaults (avast/retry-go,
              cenkalti/backoff, failsafe-go, go-retryablehttp), and the calls spread
              over 10 replicas, each with its own gate or sharing a fleet gate:
              successes, requests, 429s, when the last call ended, calls that failed
              and how

Each check is a claim made for a particular setup, named in parentheses (the blog's 100
clients, the book's steady traffic...). It is reported as "holds" or "does not hold here":
at other settings a claim may not hold, which is about the claim, not the tool.

--peers (contention, outage, herd) runs the documented default policies of other libraries
next to ours, with the same clients and seeds, read from their source:
` + peerList() + `

tail runs, beside ours, no hedging, the best fixed hedge (at the true p98, no budget) and
the peers' documented hedging: failsafe-go v0.9.8 (hedgepolicy has no default delay: the
quantile 0.95, age 30, after 20 latencies of its own tests; 1 hedge, no budget), Polly v8
(HedgingStrategyOptions: Delay 2 s, MaxHedgedAttempts 1, no budget), Finagle
(BackupRequestFilter with maxExtraLoad 1% as its MethodBuilder docs show: p99 of 30 s read
every 3 s, a 1% backup budget and its client's 20% retry budget) and gRPC's A6
(hedgingPolicy without hedgingDelay: maxAttempts copies at once; grpc-go has none).

--clients, per scenario (0 for its default; larger herds take more than a few seconds
of real time, or never settle):
` + clientRanges("  %-10s  1 to %d (default %d)", "\n") + `

--svg FILE also draws the load on the server over time, one panel per policy, always as
SVG. The same flags always print the same report.

Exit status: 0 when the report is written, whatever the checks say; 1 with --check when a
claim does not hold here (the report is still written in full), or when writing the
report or the chart fails midway; 2 for a usage error: a missing --scenario, a bad flag
value, a flag the scenario does not read (--peers, --rate, --outage, --capacity,
--replicas: each names its scenarios above), or an --svg FILE that cannot be created.`,
		Example: `  retry simulate --scenario contention
  retry simulate --scenario outage --peers --svg outage.svg
  retry simulate --scenario outage --clients 10000 --rate 10000 --capacity 12000
  retry simulate --scenario layers --json --seed 7 --check
  retry simulate --scenario fleet --replicas 100 --svg fleet.svg
  retry simulate --scenario tail --seed 1
  retry simulate --scenario ratelimit --check --svg ratelimit.svg`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Scenario == "" {
				return fmt.Errorf("--scenario is required: one of %s", strings.Join(simulate.Scenarios, ", "))
			}
			if err := scenarioFlagsApply(cmd.Flags(), opts.Scenario); err != nil {
				return err
			}
			if cmd.Flags().Changed("replicas") {
				if cmd.Flags().Changed("clients") {
					return fmt.Errorf("--replicas and --clients are the same setting for --scenario fleet: give one")
				}
				opts.Clients = replicas
			}
			if err := checkClients(opts); err != nil {
				return err
			}
			if opts.SVG != "" {
				if err := creatable(opts.SVG); err != nil {
					return fmt.Errorf("--svg %s: %w", opts.SVG, err) // a usage error: exit 2
				}
			}
			switch err := simulate.Run(cmd.OutOrStdout(), opts); {
			case err == nil:
				return nil
			case errors.Is(err, simulate.ErrInvalidOptions):
				return err // a usage error: exit 2
			default:
				return exit(exitFailed, err)
			}
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Scenario, "scenario", "", "the scenario (required): "+strings.Join(simulate.Scenarios, ", "))
	f.BoolVar(&opts.Peers, "peers", false, "run other libraries' default policies next to ours (contention, outage, herd)")
	f.BoolVar(&opts.Check, "check", false, "exit 1 when a claim does not hold here (for CI)")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	f.StringVar(&opts.SVG, "svg", "", "write the load chart to `FILE`, always as SVG, whatever its extension")
	opts.Seed = defaultSimulateSeed
	f.Var(intValue[int64]{&opts.Seed, math.MinInt64, math.MaxInt64}, "seed", "the seed of every random draw")
	f.Var(intValue[int]{&opts.Clients, 0, maxClients()}, "clients", "clients (contention, layers, herd), client processes (outage, restart), replicas\n(fleet), requests (tail) or calls (ratelimit), up to the scenario's most; 0 for the\nscenario's default")
	fleetMost := 0
	if _, most, ok := simulate.Clients("fleet"); ok {
		fleetMost = most
	}
	f.Var(intValue[int]{&replicas, 1, fleetMost}, "replicas", fmt.Sprintf("fleet: replicas of the service, 1 to %d (default 100); the same as --clients", fleetMost))
	f.Var(rateValue{&opts.Rate, 100_000}, "rate", "outage, fleet, restart, tail: operations (calls, requests) arriving per\nsecond, up to 100000; 0 for 100 (outage, restart), 30 (fleet) or 1000 (tail)")
	f.DurationVar(&opts.Outage, "outage", 0, "outage, fleet: how long the server fails every request; restart: how long the\nrestarting endpoints refuse connections; up to 1h; 0 for 20s (30s for restart)")
	f.Var(rateValue{&opts.Capacity, math.Inf(1)}, "capacity", "outage, herd: requests per second the recovered server serves;\nratelimit: the server's limit, whole requests per 1 s window; 0 for 120 (outage),\n1000 (herd) or 50 (ratelimit)")
	return cmd
}

// scenarioFlags names the flags that only some scenarios read, with those scenarios (as the
// help says), so that a flag the chosen scenario would ignore is a usage error, not a no-op.
var scenarioFlags = []struct {
	flag      string
	scenarios []string
}{
	{"peers", []string{"contention", "outage", "herd"}},
	{"rate", []string{"outage", "fleet", "restart", "tail"}},
	{"outage", []string{"outage", "fleet", "restart"}},
	{"capacity", []string{"outage", "herd", "ratelimit"}},
	{"replicas", []string{"fleet"}},
}

// scenarioFlagsApply returns a usage error naming the first flag given that scenario does
// not read, and the scenarios that do. An unknown scenario is left to simulate.Run to name.
func scenarioFlagsApply(flags *pflag.FlagSet, scenario string) error {
	if !slices.Contains(simulate.Scenarios, scenario) {
		return nil
	}
	for _, sf := range scenarioFlags {
		if flags.Changed(sf.flag) && !slices.Contains(sf.scenarios, scenario) {
			return fmt.Errorf("--%s applies to --scenario %s, not %s", sf.flag, strings.Join(sf.scenarios, ", "), scenario)
		}
	}
	return nil
}

// creatable reports whether path can be created or truncated, before a simulation spends
// time on a chart it could not save. It leaves an empty file that Run then writes.
func creatable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		var pathErr *os.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err // the path is named already
		}
		return fmt.Errorf("cannot create the file: %w", err)
	}
	return f.Close()
}

// peerList is the help's list of the policies --peers runs, indented.
func peerList() string {
	var b strings.Builder
	for i, line := range simulate.PeerSources() {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("  - " + wrap(line, 86, "    "))
	}
	return b.String()
}

// wrap breaks s into lines of at most width characters at spaces, indenting every line
// after the first with indent.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		if i > 0 && line+1+len(word) > width {
			b.WriteString("\n" + indent)
			line = len(indent)
		} else if i > 0 {
			b.WriteString(" ")
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}

// clientRanges describes each scenario's range of --clients, formatting each scenario's
// name, most and default with format and joining them with sep.
func clientRanges(format, sep string) string {
	var ranges []string
	for _, s := range simulate.Scenarios {
		def, most, _ := simulate.Clients(s)
		ranges = append(ranges, fmt.Sprintf(format, s, most, def))
	}
	return strings.Join(ranges, sep)
}

// maxClients is the most --clients that any scenario accepts.
func maxClients() int {
	n := 0
	for _, s := range simulate.Scenarios {
		_, most, _ := simulate.Clients(s)
		n = max(n, most)
	}
	return n
}

// checkClients returns a usage error when --clients is beyond its scenario's most. An
// unknown scenario is left to simulate.Run, which names the scenarios.
func checkClients(opts simulate.Options) error {
	if _, most, ok := simulate.Clients(opts.Scenario); ok && opts.Clients > most {
		return fmt.Errorf("--clients %d is invalid for --scenario %s: want a whole number from 1 to %d, or 0 for the default; "+
			"larger herds take more than a few seconds (per scenario: %s)", opts.Clients, opts.Scenario, most,
			clientRanges("%[1]s 1 to %[2]d", ", "))
	}
	return nil
}
