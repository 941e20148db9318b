package main

import (
	"errors"
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

--svg FILE also draws the load on the server over time, one line per policy.
The same flags always print the same report.`,
		Example: `  retry simulate --scenario contention
  retry simulate --scenario outage --svg outage.svg
  retry simulate --scenario layers --json --seed 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
	f.Int64Var(&opts.Seed, "seed", defaultSimulateSeed, "the seed of every random draw")
	f.IntVar(&opts.Clients, "clients", 0, "clients (contention, layers) or client processes (outage); 0 for the scenario's default")
	return cmd
}
