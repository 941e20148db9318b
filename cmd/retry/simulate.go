package main

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/retrykit/retry/cmd/retry/internal/simulate"
	"github.com/spf13/cobra"
)

// defaultSimulateSeed is simulate's seed when --seed is not given, so that the same flags
// always print the same report.
const defaultSimulateSeed = 1

func newSimulateCommand() *cobra.Command {
	var opts simulate.Options
	cmd := &cobra.Command{
		Use:   "simulate --scenario contention|outage|layers [--json] [--svg FILE] [--seed N]",
		Short: "Simulate a herd of clients retrying against a server: a table per policy and a chart",
		Long: `simulate runs a deterministic discrete-event simulation (virtual time, seeded) of many
clients whose retry loops ask the same decision function as retry http and retry run,
against a simulated server, and prints one row per policy, then whether the published
figures it reproduces hold:

  contention  N clients (--clients, default 100) update one row with optimistic
              concurrency, per jitter kind: total calls and completion time
              (AWS Architecture Blog, "Exponential Backoff And Jitter")
  outage      steady arrivals; the server fails everything for 20 s, then recovers with
              a capacity of 120 requests/s; per policy: amplification, peak load over
              capacity, time to drain, p50/p99 latency, success share
              (Google SRE book, "Handling Overload")
  layers      three layers that each make 4 attempts, with and without nested-loop
              awareness (Policy.Nested): calls at the bottom per request

--clients, per scenario (0 for its default; larger herds take more than a few seconds
of real time, or never settle):
` + clientRanges("  %-10s  1 to %d (default %d)", "\n") + `

--svg FILE also draws the load on the server over time, one line per policy, always as
SVG. The same flags always print the same report.`,
		Example: `  retry simulate --scenario contention
  retry simulate --scenario outage --svg outage.svg
  retry simulate --scenario layers --json --seed 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkClients(opts); err != nil {
				return err
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
	f.StringVar(&opts.Scenario, "scenario", "", "the scenario: "+strings.Join(simulate.Scenarios, ", "))
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	f.StringVar(&opts.SVG, "svg", "", "write the load chart to `FILE`, always as SVG, whatever its extension")
	opts.Seed = defaultSimulateSeed
	f.Var(intValue[int64]{&opts.Seed, math.MinInt64, math.MaxInt64}, "seed", "the seed of every random draw")
	f.Var(intValue[int]{&opts.Clients, 0, maxClients()}, "clients", "clients (contention, layers) or client processes (outage),\nup to the scenario's most; 0 for the scenario's default")
	return cmd
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
