package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/spf13/cobra"
)

// defaultPlanSeed is the seed of plan's draws when --seed is not given, so that the same
// flags always print the same table.
const defaultPlanSeed = 1

func newPlanCommand() *cobra.Command {
	var flags policyFlags
	var asJSON, strict bool
	var retryOn []int
	format := "table"
	cmd := &cobra.Command{
		Use:   "plan [flags]",
		Short: "Print the schedule a policy gives: waits, a seeded draw, the worst case",
		Long: `plan prints the schedule the policy flags give, one row per attempt:

  wait ceiling  the backoff's ceiling for the wait before the attempt, before jitter
                (for --jitter decorrelated, the most the wait can be)
  seeded draw   the wait a loop draws with --seed (default 1), as retry http and
                retry run would wait after failures
  worst case    the latest the attempt can start: every earlier wait at its most, every
                earlier attempt taking --attempt-timeout (instant when it is not set)
  fits          whether the attempt starts before --timeout: yes in the worst case, no
                even in the best, maybe in between; when it does not, the loop stops
                with wait_exceeds_deadline rather than sleep into the deadline

Waits longer than --max-wait are shortened to it. A server's Retry-After can make a wait
longer than planned, never shorter. --log and --quiet are accepted, so that a script can
pass the same policy flags to every subcommand, and change nothing.

--format grpc|envoy|istio writes the policy as another system's retry configuration
instead, so that a mesh or a gRPC channel retries as retry would:

  grpc   a gRPC service config (JSON) whose retryPolicy applies to every method: for
         grpc.WithDefaultServiceConfig or a resolver. Retries UNAVAILABLE.
  envoy  the timeout and retry_policy of an Envoy route (YAML), Retry-After included
  istio  the timeout and retries of an Istio VirtualService HTTP route (YAML)

Whatever the target cannot express (a jitter kind, a multiplier other than 2 for Envoy,
for gRPC more than 5 attempts unless the channel is dialled with
grpc.WithMaxCallAttempts, and failures after response headers, Retry-After, RateLimit,
budgets, the unknown-outcome rule for writes) is named in a warning on stderr; with
--strict, plan then writes nothing and exits 2.`,
		Example: `  # the schedule of SPEC R1.6: waits of 1, 2, 4, 8, 16 s, each plus up to 1 s of random milliseconds
  retry plan --attempts 6 --base 1s --backoff exponential --jitter additive
  # exponential ceilings 0.5, 1, 2, 4, 8, 8 s
  retry plan --base 500ms --max-delay 8s --attempts 7 --jitter none
  # the same as JSON, with another seed
  retry plan --attempts 4 --seed 7 --json
  # the policy as a gRPC service config, and as an Envoy route's retry policy
  retry plan --attempts 4 --base 200ms --max-delay 5s --format grpc
  retry plan --attempts 4 --attempt-timeout 2s --format envoy`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := flags.policy()
			if err != nil {
				return err
			}
			if asJSON && cmd.Flags().Changed("format") && format != "json" {
				return fmt.Errorf("--json and --format %s do not go together: --json is --format json", format)
			}
			if strict && !slices.Contains(exportFormats, format) {
				return fmt.Errorf("--strict applies to --format grpc, envoy or istio, not %s", format)
			}
			if cmd.Flags().Changed("retry-on") {
				if format != "envoy" && format != "istio" {
					return fmt.Errorf("--retry-on applies to --format envoy or istio, not %s", format)
				}
				p.RetryableStatuses = retryOn
			}
			if slices.Contains(exportFormats, format) {
				return writeExport(cmd, format, p, strict)
			}
			seed := uint64(defaultPlanSeed)
			if flags.seedSet {
				seed = flags.seed
			}
			pl := newPlan(p, seed)
			if asJSON || format == "json" {
				return writeJSON(cmd.OutOrStdout(), pl)
			}
			pl.writeTable(cmd.OutOrStdout())
			return nil
		},
	}
	flags.register(cmd.Flags())
	flags.registerRecords(cmd.Flags())
	for _, name := range []string{"log", "quiet"} {
		cmd.Flags().Lookup(name).Usage = "accepted, as by http and run, for scripts that pass the\nshared flags: plan makes no decisions, so it changes nothing"
	}
	cmd.Flags().Lookup("seed").Usage = "seed of the jitter draws (default 1)"
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the plan as one JSON object (--format json)")
	cmd.Flags().Var(choiceValue{&format, append([]string{"table", "json"}, exportFormats...)}, "format",
		"table, json, or the policy as another system's retry configuration:\ngrpc (service config JSON), envoy or istio (YAML)")
	registerRetryOn(cmd.Flags(), &retryOn, "with --format envoy or istio: HTTP statuses to retry, or none, as retry http's")
	cmd.Flags().BoolVar(&strict, "strict", false, "with --format grpc, envoy or istio: exit 2, writing nothing,\nwhen the target cannot express the whole policy")
	return cmd
}

// writeExport writes p in format's terms to stdout, and a warning on stderr for each thing
// the format cannot express; with strict, any such loss writes nothing and exits 2.
func writeExport(cmd *cobra.Command, format string, p retry.Policy, strict bool) error {
	e, err := exportPolicy(format, p)
	if err != nil {
		return err
	}
	for _, lost := range e.lost {
		fmt.Fprintf(cmd.ErrOrStderr(), "%s: warning: %s cannot express %s\n", cmd.CommandPath(), format, lost)
	}
	if strict && len(e.lost) > 0 {
		return exit(exitUsage, fmt.Errorf("--strict: %s cannot express the whole policy (%s above); nothing written", format, count(len(e.lost), "warning")))
	}
	_, err = cmd.OutOrStdout().Write(e.config)
	return err
}

// plan is a policy's schedule. Durations are milliseconds in JSON, as in the decision
// record; a NoLimit timeout or max wait is omitted.
type plan struct {
	Policy           string     `json:"policy"`
	Attempts         int        `json:"attempts"`
	TimeoutMS        *float64   `json:"timeout_ms,omitempty"`
	AttemptTimeoutMS *float64   `json:"attempt_timeout_ms,omitempty"`
	MaxWaitMS        *float64   `json:"max_wait_ms,omitempty"`
	Seed             uint64     `json:"seed"`
	Schedule         []planStep `json:"schedule"`

	timeout time.Duration // retry.NoLimit when none
}

// planStep is one attempt of a plan. The wait fields are those of the wait before the
// attempt, absent for the first.
type planStep struct {
	Attempt     int      `json:"attempt"`
	CeilingMS   *float64 `json:"wait_ceiling_ms,omitempty"`
	DrawMS      *float64 `json:"draw_ms,omitempty"`
	WaitMinMS   *float64 `json:"wait_min_ms,omitempty"`
	WaitMaxMS   *float64 `json:"wait_max_ms,omitempty"`
	WorstCaseMS float64  `json:"worst_case_ms"`
	Fits        string   `json:"fits"`

	ceiling, draw, worstCase time.Duration
}

// newPlan computes p's schedule. The draws are retry.Decide's waits after a retryable
// failure, with p.Random seeded by seed; the ceilings and bounds are p.Backoff's, with waits
// above p.MaxWait shortened to it as Decide does.
func newPlan(p retry.Policy, seed uint64) plan {
	p.Random = backoff.NewSource(seed)
	pl := plan{Policy: p.Backoff.String(), Attempts: p.MaxAttempts, Seed: seed, timeout: p.Timeout,
		TimeoutMS: limitMS(p.Timeout), MaxWaitMS: limitMS(p.MaxWait)}
	if p.AttemptTimeout > 0 {
		pl.AttemptTimeoutMS = ptr(ms(p.AttemptTimeout))
	}
	capWait := func(d time.Duration) time.Duration {
		if p.MaxWait != retry.NoLimit {
			return min(d, p.MaxWait)
		}
		return d
	}
	var start time.Time
	var elapsed, worst, best, previousDraw, previousHigh time.Duration
	pl.Schedule = append(pl.Schedule, pl.step(1, best, worst))
	for attempt := 1; attempt < p.MaxAttempts; attempt++ {
		d := retry.Decide(&p, retry.State{Attempt: attempt, Start: start, Now: start.Add(elapsed),
			PreviousWait: previousDraw}, retry.Outcome{Class: retry.ClassRetryable})
		n := attempt - 1
		low, high := p.Backoff.Bounds(n, previousHigh)
		low, high = capWait(low), capWait(high)
		ceiling := p.Backoff.Ceiling(n)
		if p.Backoff.Jitter() == backoff.DecorrelatedJitter {
			ceiling = high
		}
		worst = addSat(addSat(worst, max(p.AttemptTimeout, 0)), high)
		best = addSat(best, low)
		elapsed = addSat(elapsed, d.Wait)
		previousDraw, previousHigh = d.Wait, high
		s := pl.step(attempt+1, best, worst)
		s.ceiling, s.draw = ceiling, d.Wait
		s.CeilingMS, s.DrawMS, s.WaitMinMS, s.WaitMaxMS = ptr(ms(ceiling)), ptr(ms(d.Wait)), ptr(ms(low)), ptr(ms(high))
		pl.Schedule = append(pl.Schedule, s)
	}
	return pl
}

// addSat returns a+b for durations of zero or more, saturated at the longest Duration
// instead of overflowing (SPEC R1.7: sums of waits never overflow).
func addSat(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// worstString writes a worst case in seconds, with ">=" when the sum saturated at the
// longest Duration: the true worst case is at least that.
func worstString(d time.Duration) string {
	if d == math.MaxInt64 {
		return ">=" + seconds(d)
	}
	return seconds(d)
}

// step returns attempt's step with its fit: yes when it starts before the timeout even in
// the worst case, no when not even in the best, maybe otherwise.
func (pl *plan) step(attempt int, best, worst time.Duration) planStep {
	s := planStep{Attempt: attempt, WorstCaseMS: ms(worst), worstCase: worst, Fits: "yes"}
	switch {
	case pl.timeout == retry.NoLimit || worst < pl.timeout:
	case best >= pl.timeout:
		s.Fits = "no"
	default:
		s.Fits = "maybe"
	}
	return s
}

// writeTable writes the plan as a header line, a table and a summary.
func (pl *plan) writeTable(w io.Writer) {
	fmt.Fprintf(w, "policy: %s, %s, --timeout %s, --max-wait %s", pl.Policy, count(pl.Attempts, "attempt"),
		limitString(pl.TimeoutMS), limitString(pl.MaxWaitMS))
	if pl.AttemptTimeoutMS != nil {
		fmt.Fprintf(w, ", --attempt-timeout %s", seconds(msDuration(*pl.AttemptTimeoutMS)))
	}
	fmt.Fprintf(w, ", seed %d\n", pl.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "attempt\twait ceiling\tseeded draw\tworst case\tfits --timeout")
	for _, s := range pl.Schedule {
		ceiling, draw := "-", "-"
		if s.CeilingMS != nil {
			ceiling, draw = seconds(s.ceiling), seconds(s.draw)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", s.Attempt, ceiling, draw, worstString(s.worstCase), s.Fits)
	}
	tw.Flush()
	fmt.Fprintln(w, pl.summary())
	note := "Attempts count as instant (set --attempt-timeout to count them). "
	if pl.AttemptTimeoutMS != nil {
		note = ""
	}
	fmt.Fprintln(w, note+"A server's Retry-After can make a wait longer, up to --max-wait.")
}

// summary says how many attempts fit the timeout in the worst case.
func (pl *plan) summary() string {
	last := pl.Schedule[len(pl.Schedule)-1]
	if pl.TimeoutMS == nil {
		return fmt.Sprintf("Worst case: attempt %d starts by %s; no --timeout.", last.Attempt, worstString(last.worstCase))
	}
	timeout := seconds(pl.timeout)
	for _, s := range pl.Schedule {
		if s.Fits != "yes" {
			return fmt.Sprintf("Worst case: attempt %d starts by %s, after --timeout %s: from attempt %d on, the loop may stop with wait_exceeds_deadline.",
				last.Attempt, worstString(last.worstCase), timeout, s.Attempt)
		}
	}
	fits := fmt.Sprintf("all %d attempts fit", last.Attempt)
	if last.Attempt == 1 {
		fits = "it fits"
	}
	return fmt.Sprintf("Worst case: attempt %d starts by %s; %s --timeout %s.", last.Attempt, worstString(last.worstCase), fits, timeout)
}

// count returns n and noun, plural unless n is 1: "1 attempt", "6 attempts".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// seconds writes d in seconds with at most three decimals and no trailing zeros: "0.5s",
// "16s", "1.437s".
func seconds(d time.Duration) string {
	s := strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + "s"
}

func limitString(msp *float64) string {
	if msp == nil {
		return "none"
	}
	return seconds(msDuration(*msp))
}

func limitMS(d time.Duration) *float64 {
	if d == retry.NoLimit {
		return nil
	}
	return ptr(ms(d))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func ptr[T any](v T) *T { return &v }

// writeJSON writes v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}
