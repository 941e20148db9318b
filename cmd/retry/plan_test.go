package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"pgregory.net/rapid"
)

func TestPlanSeed000Schedule(t *testing.T) {
	code, stdout, stderr := runCLI(t, "plan", "--attempts", "6", "--base", "1s", "--backoff", "exponential", "--jitter", "additive")
	want := `policy: exponential base=1s multiplier=2 max=30s jitter=additive additive_max=1s, 6 attempts, --timeout 30s, --max-wait 30s, seed 1
attempt  wait ceiling  seeded draw  worst case  fits --timeout
1        -             -            0s          yes
2        1s            1.567s       2s          yes
3        2s            2.746s       5s          yes
4        4s            4.971s       10s         yes
5        8s            8.444s       19s         yes
6        16s           16.444s      36s         no
Worst case: attempt 6 starts by 36s, after --timeout 30s: from attempt 6 on, the loop may stop with wait_exceeds_deadline.
Attempts count as instant (set --attempt-timeout to count them). A server's Retry-After can make a wait longer, up to --max-wait.
`
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr, stdout, want)
	}
}

func TestPlanExponentialCeilingsCapped(t *testing.T) {
	code, stdout, _ := runCLI(t, "plan", "--base", "500ms", "--max-delay", "8s", "--attempts", "7", "--jitter", "none")
	want := `policy: exponential base=500ms multiplier=2 max=8s jitter=none, 7 attempts, --timeout 30s, --max-wait 30s, seed 1
attempt  wait ceiling  seeded draw  worst case  fits --timeout
1        -             -            0s          yes
2        0.5s          0.5s         0.5s        yes
3        1s            1s           1.5s        yes
4        2s            2s           3.5s        yes
5        4s            4s           7.5s        yes
6        8s            8s           15.5s       yes
7        8s            8s           23.5s       yes
Worst case: attempt 7 starts by 23.5s; all 7 attempts fit --timeout 30s.
Attempts count as instant (set --attempt-timeout to count them). A server's Retry-After can make a wait longer, up to --max-wait.
`
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, stdout, want)
	}
}

func TestPlanAttemptTimeoutMaxWaitAndMaybe(t *testing.T) {
	// Full jitter: the best case waits nothing, so an attempt that misses the timeout only
	// in the worst case is "maybe"; waits above --max-wait are shortened to it.
	code, stdout, _ := runCLI(t, "plan", "--attempts", "4", "--base", "2s", "--max-wait", "3s",
		"--attempt-timeout", "1s", "--timeout", "8s", "--seed", "3")
	want := `policy: exponential base=2s multiplier=2 max=30s jitter=full, 4 attempts, --timeout 8s, --max-wait 3s, --attempt-timeout 1s, seed 3
attempt  wait ceiling  seeded draw  worst case  fits --timeout
1        -             -            0s          yes
2        2s            0.227s       3s          yes
3        4s            2.801s       7s          yes
4        8s            3s           11s         maybe
Worst case: attempt 4 starts by 11s, after --timeout 8s: from attempt 4 on, the loop may stop with wait_exceeds_deadline.
A server's Retry-After can make a wait longer, up to --max-wait.
`
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, stdout, want)
	}
}

func TestPlanJSON(t *testing.T) {
	code, stdout, _ := runCLI(t, "plan", "--attempts", "3", "--base", "1s", "--jitter", "none", "--timeout", "none", "--json")
	want := `{"policy":"exponential base=1s multiplier=2 max=30s jitter=none","attempts":3,"max_wait_ms":30000,"seed":1,"schedule":[` +
		`{"attempt":1,"worst_case_ms":0,"fits":"yes"},` +
		`{"attempt":2,"wait_ceiling_ms":1000,"draw_ms":1000,"wait_min_ms":1000,"wait_max_ms":1000,"worst_case_ms":1000,"fits":"yes"},` +
		`{"attempt":3,"wait_ceiling_ms":2000,"draw_ms":2000,"wait_min_ms":2000,"wait_max_ms":2000,"worst_case_ms":3000,"fits":"yes"}]}` + "\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, stdout, want)
	}
	if !json.Valid([]byte(stdout)) {
		t.Error("not JSON")
	}
}

func TestPlanDecorrelatedCeilingIsTheMostAWaitCanBe(t *testing.T) {
	_, stdout, _ := runCLI(t, "plan", "--attempts", "4", "--base", "1s", "--max-delay", "5s", "--jitter", "decorrelated", "--json")
	var pl plan
	if err := json.Unmarshal([]byte(stdout), &pl); err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{3000, 5000, 5000} {
		s := pl.Schedule[i+1]
		if *s.CeilingMS != want || *s.WaitMaxMS != want || *s.DrawMS < 1000 || *s.DrawMS > want {
			t.Errorf("attempt %d: ceiling %v, max %v, draw %v; want ceiling and max %v", s.Attempt, *s.CeilingMS, *s.WaitMaxMS, *s.DrawMS, want)
		}
	}
}

func TestPlanOneAttemptIsSingular(t *testing.T) {
	code, stdout, _ := runCLI(t, "plan", "--attempts", "1", "--jitter", "none")
	want := `policy: exponential base=100ms multiplier=2 max=30s jitter=none, 1 attempt, --timeout 30s, --max-wait 30s, seed 1
attempt  wait ceiling  seeded draw  worst case  fits --timeout
1        -             -            0s          yes
Worst case: attempt 1 starts by 0s; it fits --timeout 30s.
Attempts count as instant (set --attempt-timeout to count them). A server's Retry-After can make a wait longer, up to --max-wait.
`
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, stdout, want)
	}
}

// TestPlanSumsSaturate: sums of waits and attempt timeouts that exceed the longest Duration
// saturate (SPEC R1.7) instead of wrapping to a negative worst case that "fits".
func TestPlanSumsSaturate(t *testing.T) {
	args := []string{"plan", "--attempts", "3", "--base", "2000000h", "--max-delay", "2562047h",
		"--attempt-timeout", "2562047h", "--timeout", "1h", "--max-wait", "none", "--jitter", "none"}
	code, stdout, _ := runCLI(t, args...)
	want := `policy: exponential base=2000000h0m0s multiplier=2 max=2562047h0m0s jitter=none, 3 attempts, --timeout 3600s, --max-wait none, --attempt-timeout 9223369200s, seed 1
attempt  wait ceiling  seeded draw  worst case         fits --timeout
1        -             -            0s                 yes
2        7200000000s   7200000000s  >=9223372036.855s  no
3        9223369200s   9223369200s  >=9223372036.855s  no
Worst case: attempt 3 starts by >=9223372036.855s, after --timeout 3600s: from attempt 2 on, the loop may stop with wait_exceeds_deadline.
A server's Retry-After can make a wait longer, up to --max-wait.
`
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, stdout, want)
	}
	_, stdout, _ = runCLI(t, append(args, "--json")...)
	var pl plan
	if err := json.Unmarshal([]byte(stdout), &pl); err != nil {
		t.Fatal(err)
	}
	for _, s := range pl.Schedule[1:] {
		if s.WorstCaseMS != float64(math.MaxInt64)/1e6 || s.Fits != "no" {
			t.Errorf("attempt %d: worst_case_ms %v, fits %s; want the longest Duration, no", s.Attempt, s.WorstCaseMS, s.Fits)
		}
	}
}

// TestPlanWorstCaseProperty: for any policy, the worst case never decreases from one
// attempt to the next nor goes below zero, and an attempt fits ("yes") exactly when its
// worst case is within --timeout.
func TestPlanWorstCaseProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		long := rapid.Int64Range(0, math.MaxInt64)
		base := time.Duration(long.Draw(t, "base"))
		most := time.Duration(rapid.Int64Range(int64(base), math.MaxInt64).Draw(t, "max"))
		jitter, err := backoff.ParseJitter(rapid.SampledFrom(jitterNames).Draw(t, "jitter"))
		if err != nil {
			t.Fatal(err)
		}
		strategy, err := backoff.New(backoff.Config{Kind: backoff.Exponential, Base: base, Max: most, Jitter: jitter})
		if err != nil {
			t.Skip(err)
		}
		limit := func(name string) time.Duration {
			if rapid.Bool().Draw(t, name+" none") {
				return retry.NoLimit
			}
			return time.Duration(rapid.Int64Range(1, math.MaxInt64).Draw(t, name))
		}
		p := retry.Policy{MaxAttempts: rapid.IntRange(1, 12).Draw(t, "attempts"), Backoff: strategy,
			Timeout: limit("timeout"), MaxWait: limit("max wait"), AttemptTimeout: time.Duration(long.Draw(t, "attempt timeout"))}
		if err := p.Validate(); err != nil {
			t.Skip(err)
		}
		pl := newPlan(p, 1)
		previous := time.Duration(0)
		for _, s := range pl.Schedule {
			if s.worstCase < previous {
				t.Fatalf("attempt %d: worst case %v below the previous %v", s.Attempt, s.worstCase, previous)
			}
			if fits := p.Timeout == retry.NoLimit || s.worstCase < p.Timeout; fits != (s.Fits == "yes") {
				t.Fatalf("attempt %d: worst case %v, timeout %v, fits %q", s.Attempt, s.worstCase, p.Timeout, s.Fits)
			}
			previous = s.worstCase
		}
	})
}

// TestPlanAcceptsTheSharedRecordFlags: --log and --quiet, shared by every subcommand
// (DESIGN), are accepted by plan and change nothing; a bad --log is still a usage error.
func TestPlanAcceptsTheSharedRecordFlags(t *testing.T) {
	_, want, _ := runCLI(t, "plan", "--attempts", "3")
	for _, extra := range [][]string{{"--quiet"}, {"--log", "json"}, {"--log", "text", "--quiet"}} {
		code, stdout, stderr := runCLI(t, append([]string{"plan", "--attempts", "3"}, extra...)...)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout\n%s\nwant\n%s", extra, code, stderr, stdout, want)
		}
	}
	if code, _, stderr := runCLI(t, "plan", "--log", "xml"); code != exitUsage || !strings.HasPrefix(stderr, `retry plan: --log "xml" is invalid: want one of text, json`) {
		t.Errorf("plan --log xml: exit %d, stderr %q", code, stderr)
	}
}

func TestPlanMultiplier(t *testing.T) {
	code, stdout, _ := runCLI(t, "plan", "--base", "500ms", "--multiplier", "1.5", "--max-delay", "2s", "--attempts", "6", "--jitter", "none")
	want := `policy: exponential base=500ms multiplier=1.5 max=2s jitter=none, 6 attempts, --timeout 30s, --max-wait 30s, seed 1
attempt  wait ceiling  seeded draw  worst case  fits --timeout
1        -             -            0s          yes
2        0.5s          0.5s         0.5s        yes
3        0.75s         0.75s        1.25s       yes
4        1.125s        1.125s       2.375s      yes
5        1.688s        1.688s       4.062s      yes
6        2s            2s           6.062s      yes
Worst case: attempt 6 starts by 6.062s; all 6 attempts fit --timeout 30s.
Attempts count as instant (set --attempt-timeout to count them). A server's Retry-After can make a wait longer, up to --max-wait.
`
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, stdout, want)
	}
}
