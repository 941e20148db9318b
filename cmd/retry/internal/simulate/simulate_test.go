package simulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mustSimulate runs opts and fails the test on an error.
func mustSimulate(t *testing.T, opts Options) *Report {
	t.Helper()
	r, err := Simulate(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// requireChecks fails the test for every check of r that does not hold.
func requireChecks(t *testing.T, r *Report) {
	t.Helper()
	for _, c := range r.Checks {
		if !c.Holds {
			t.Errorf("seed %d: %s: %s", r.Seed, c.Claim, c.Detail)
		}
	}
}

func value(t *testing.T, r *Report, policy, key string) float64 {
	t.Helper()
	for _, row := range r.Rows {
		if row.Policy == policy {
			v, ok := row.Metrics[key]
			if !ok {
				t.Fatalf("row %q has no metric %q", policy, key)
			}
			return v
		}
	}
	t.Fatalf("no row %q", policy)
	return 0
}

// The AWS blog's result holds at 100 clients on fixed seeds, each the mean of 20 runs (as the
// blog averages its runs); it held on every seed from 1 to 12 when this test was written.
func TestContentionReproducesBlog(t *testing.T) {
	for _, seed := range []int64{1, 2} {
		r := mustSimulate(t, Options{Scenario: "contention", Seed: seed, Clients: 100, Runs: 20})
		requireChecks(t, r)
		if len(r.Checks) != 3 {
			t.Fatalf("got %d checks, want 3", len(r.Checks))
		}
		// Every client succeeds exactly once, so there are at least as many calls as clients.
		for _, row := range r.Rows {
			if row.Metrics["calls"] < 100 {
				t.Errorf("seed %d, %s: %v calls for 100 clients", seed, row.Policy, row.Metrics["calls"])
			}
		}
	}
}

func TestOutageReproducesSREBook(t *testing.T) {
	for _, seed := range []int64{1, 2} {
		r := mustSimulate(t, Options{Scenario: "outage", Seed: seed, Outage: 10 * time.Second})
		requireChecks(t, r)
		if got := value(t, r, "no retry", "amplification"); got != 1 {
			t.Errorf("no retry amplification %v, want exactly 1", got)
		}
		// Retries without a budget push the server far over its capacity; the budget keeps
		// it near, the breaker below.
		if got := value(t, r, "3 attempts, no jitter", "peak_over_capacity"); got < 2 {
			t.Errorf("3 attempts peak %v x capacity, want >= 2", got)
		}
		if got := value(t, r, "3 attempts, 10% budget", "peak_over_capacity"); got > 1.5 {
			t.Errorf("budget peak %v x capacity, want <= 1.5", got)
		}
		if got := value(t, r, "3 attempts, breaker", "peak_over_capacity"); got > 1 {
			t.Errorf("breaker peak %v x capacity, want <= 1", got)
		}
	}
}

func TestLayersMultiply(t *testing.T) {
	r := mustSimulate(t, Options{Scenario: "layers", Seed: 1, Clients: 10})
	requireChecks(t, r)
	if got := value(t, r, "4 attempts at every layer", "bottom_calls_per_request"); got != 64 {
		t.Errorf("bottom calls %v, want 64", got)
	}
	if got := value(t, r, "same, Nested: NestedSingleAttempt", "bottom_calls_per_request"); got != 4 {
		t.Errorf("nested-aware bottom calls %v, want 4", got)
	}
}

// The same options give the same report, byte for byte; another seed gives another one.
func TestDeterministic(t *testing.T) {
	run := func(seed int64) string {
		var b bytes.Buffer
		if err := Run(&b, Options{Scenario: "contention", Seed: seed, Clients: 20, Runs: 2, JSON: true}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if a, b := run(5), run(5); a != b {
		t.Error("two runs with seed 5 differ")
	}
	if run(5) == run(6) {
		t.Error("seeds 5 and 6 gave the same report")
	}
}

func TestRunText(t *testing.T) {
	var b bytes.Buffer
	if err := Run(&b, Options{Scenario: "layers", Seed: 1, Clients: 5}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scenario layers (seed 1)", "bottom_calls_per_request", "64.0", "[holds] three layers"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRunJSONAndSVG(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "load.svg")
	var b bytes.Buffer
	if err := Run(&b, Options{Scenario: "outage", Seed: 1, Clients: 4, Rate: 20, Outage: 5 * time.Second, JSON: true, SVG: svg}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Scenario string
		Capacity float64 `json:"capacity_per_s"`
		Rows     []struct {
			Policy  string
			Metrics map[string]float64
		}
		Checks []struct{ Claim string }
		Load   []struct {
			Policy string
			Rate   []float64 `json:"rate_per_s"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, b.String())
	}
	if got.Scenario != "outage" || got.Capacity != 120 || len(got.Rows) != len(outagePolicies) || len(got.Load) != len(outagePolicies) || len(got.Checks) != 3 {
		t.Errorf("unexpected report: %+v", got)
	}
	if _, ok := got.Rows[0].Metrics["p99_ms"]; !ok {
		t.Errorf("row lacks p99_ms: %+v", got.Rows[0])
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "3 attempts, breaker", "dashed: capacity 120/s"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestInvalidOptions(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Scenario: "storm"}, `unknown scenario "storm": allowed are contention, outage, layers, herd`},
		{Options{}, `unknown scenario ""`},
		{Options{Scenario: "contention", Clients: -1}, "clients -1 is invalid"},
		{Options{Scenario: "contention", Clients: 1001}, "clients 1001 is too many for scenario contention: at most 1000"},
		{Options{Scenario: "layers", Clients: 10_001}, "clients 10001 is too many for scenario layers: at most 10000"},
		{Options{Scenario: "outage", Clients: 100_001}, "clients 100001 is too many for scenario outage: at most 100000"},
		{Options{Scenario: "contention", Runs: -2}, "runs -2 is invalid"},
		{Options{Scenario: "outage", Rate: -5}, "rate -5 is invalid"},
		{Options{Scenario: "outage", Outage: -time.Second}, "outage -1s is invalid"},
		{Options{Scenario: "outage", Capacity: -1}, "capacity -1 is invalid"},
		{Options{Scenario: "layers", Peers: true}, "peers compares default policies in the contention, outage and herd scenarios, not in layers"},
		{Options{Scenario: "fleet", Peers: true}, "peers compares default policies in the contention, outage and herd scenarios, not in fleet"},
	} {
		var b bytes.Buffer
		err := Run(&b, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.opts, err, tc.want)
		}
		if !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: error %v does not match ErrInvalidOptions", tc.opts, err)
		}
		if strings.Contains(err.Error(), "simulate") || strings.Contains(err.Error(), "invalid options") {
			t.Errorf("%+v: error %q repeats who is speaking; the command line says it", tc.opts, err)
		}
		if b.Len() != 0 {
			t.Errorf("%+v: wrote %q before failing", tc.opts, b.String())
		}
	}
}

func TestUnwritableSVG(t *testing.T) {
	err := Run(&bytes.Buffer{}, Options{Scenario: "layers", Clients: 1, SVG: filepath.Join(t.TempDir(), "no", "such", "dir.svg")})
	if err == nil || !strings.Contains(err.Error(), "cannot create the chart file: open ") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v, want the chart file's creation error", err)
	}
}

// TestSVGWhateverTheExtension: the chart is SVG whether the file's name ends in .svg, in
// another format's extension, or in none.
func TestSVGWhateverTheExtension(t *testing.T) {
	for _, name := range []string{"chart", "chart.png", "chart.PDF"} {
		path := filepath.Join(t.TempDir(), name)
		if err := Run(&bytes.Buffer{}, Options{Scenario: "layers", Clients: 1, SVG: path}); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil || !bytes.HasPrefix(data, []byte("<?xml")) || !bytes.Contains(data, []byte("<svg")) {
			t.Errorf("%s: not an SVG file (%v): %.40q", name, err, data)
		}
	}
}

// --check: a claim that does not hold at these settings (the blog's claims at 10 clients)
// gives ErrClaimDoesNotHold naming it, after the whole report is written; one where every
// claim holds gives nil.
func TestCheck(t *testing.T) {
	var b bytes.Buffer
	err := Run(&b, Options{Scenario: "contention", Clients: 10, Runs: 20, Seed: 1, Check: true})
	if !errors.Is(err, ErrClaimDoesNotHold) || !strings.Contains(err.Error(), `"full jitter does the least work"`) {
		t.Errorf("error %v, want ErrClaimDoesNotHold naming the full jitter claim", err)
	}
	if out := b.String(); !strings.Contains(out, "[does not hold here] full jitter does the least work (the AWS blog's setup: 100 clients") {
		t.Errorf("report lacks the failed claim with its setup:\n%s", out)
	}
	if err := Run(&bytes.Buffer{}, Options{Scenario: "layers", Clients: 5, Check: true}); err != nil {
		t.Errorf("layers with --check: %v", err)
	}
	if err := Run(&bytes.Buffer{}, Options{Scenario: "contention", Clients: 10, Runs: 20, Seed: 1}); err != nil {
		t.Errorf("without --check a claim that does not hold is no error: %v", err)
	}
}

// The Retry-After herd: without a spread every client comes back in the same 100 ms and
// most give up; the default spread flattens the return below the capacity's reach and
// answers every client.
func TestHerd(t *testing.T) {
	r := mustSimulate(t, Options{Scenario: "herd", Seed: 1})
	requireChecks(t, r)
	if got := value(t, r, "no spread (RetryAfterSpread None)", "return_peak_per_100ms"); got != 2000 {
		t.Errorf("without the spread the busiest 100 ms has %v requests, want all 2000", got)
	}
	if got := value(t, r, "no spread (RetryAfterSpread None)", "return_spread_ms"); got > herdStart.Seconds()*1000 {
		t.Errorf("without the spread second attempts span %v ms, want within the %v the first ones did", got, herdStart)
	}
	if got := value(t, r, "default spread (as much again for 1 s, a tenth of a longer wait)", "return_spread_ms"); got < 900 || got > 1000+herdStart.Seconds()*1000 {
		t.Errorf("with the default spread second attempts span %v ms, want about the whole 1 s Retry-After", got)
	}
	if got := value(t, r, "default spread (as much again for 1 s, a tenth of a longer wait)", "success_share"); got != 1 {
		t.Errorf("with the default spread %v of the clients succeed, want all", got)
	}
	if len(r.Load) != 2 || r.Load[0].Step != 0.1 {
		t.Errorf("load: %d series, step %v s; want 2 series in steps of 0.1 s", len(r.Load), r.Load[0].Step)
	}
}

// The tail scenario's claims hold at its defaults on fixed seeds (they held on seeds 1 to 3
// when this test was written), and a seed gives one report.
func TestTailReproducesTheIssue(t *testing.T) {
	r := mustSimulate(t, Options{Scenario: "tail", Seed: 1})
	requireChecks(t, r)
	if len(r.Checks) != 5 || len(r.Rows) != 7 {
		t.Fatalf("%d checks, %d rows; want 5, 7", len(r.Checks), len(r.Rows))
	}
	const ours = "retry (ours): adaptive, 2% hedge budget"
	if v := value(t, r, "Polly v8: 2 s, 1 hedge", "extra_pct"); v != 0 {
		t.Errorf("Polly's 2 s hedge, longer than any pause, sent %.2f%% extra", v)
	}
	if v := value(t, r, "gRPC A6: hedgingDelay left out, maxAttempts 2", "extra_pct"); v != 100 {
		t.Errorf("gRPC's hedges at once sent %.2f%% extra, want 100", v)
	}
	if p, q := value(t, r, ours, "p999_ms"), value(t, r, "Finagle: maxExtraLoad 1%", "p999_ms"); p >= q {
		t.Errorf("ours %.1f ms at p99.9, Finagle's 1%% %.1f ms: want ours below", p, q)
	}
	small := Options{Scenario: "tail", Seed: 7, Clients: 5000}
	var a, b bytes.Buffer
	if err := Run(&a, small); err != nil {
		t.Fatal(err)
	}
	if err := Run(&b, small); err != nil || a.String() != b.String() {
		t.Errorf("one seed, two reports (%v):\n%s\n%s", err, a.String(), b.String())
	}
}

// tailQuantile is the model's: p98 near 14 ms, p99.9 of one attempt well inside the pauses.
func TestTailQuantile(t *testing.T) {
	if q := tailQuantile(0.98); q < 13*time.Millisecond || q > 15*time.Millisecond {
		t.Errorf("p98 %v, want about 14ms", q)
	}
	if q := tailQuantile(0.999); q < 850*time.Millisecond || q > 950*time.Millisecond {
		t.Errorf("p99.9 %v, want about 920ms", q)
	}
}
