package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// exportCases are the golden files of plan --format grpc|envoy|istio: each holds the command,
// its stdout, its stderr and its exit code. Refresh with go test ./cmd/retry -run
// TestPlanExportGolden -update, and review the diff.
var exportCases = []struct {
	name string
	args []string
}{
	{"grpc-default", []string{"--format", "grpc"}},
	{"grpc-lossy", []string{"--format", "grpc", "--attempts", "7", "--base", "200ms", "--max-delay", "5s", "--multiplier", "1.5",
		"--jitter", "none", "--attempt-timeout", "2s", "--timeout", "none"}},
	{"grpc-constant", []string{"--format", "grpc", "--backoff", "constant", "--base", "1s", "--attempts", "4", "--timeout", "10s"}},
	{"grpc-one-attempt", []string{"--format", "grpc", "--attempts", "1", "--attempt-timeout", "2s", "--strict"}},
	// Issue 23 item 4: 8 attempts are written as 8; grpc-go needs WithMaxCallAttempts(8).
	{"grpc-attempts-8", []string{"--format", "grpc", "--attempts", "8", "--backoff", "constant", "--base", "100ms"}},
	{"istio-one-attempt", []string{"--format", "istio", "--attempts", "1", "--attempt-timeout", "2s", "--strict"}},
	{"envoy-default", []string{"--format", "envoy"}},
	{"envoy-tiny", []string{"--format", "envoy", "--base", "1ns", "--max-delay", "1ns", "--max-wait", "1ns", "--attempt-timeout", "1ns", "--timeout", "1ns"}},
	{"envoy-lossy", []string{"--format", "envoy", "--multiplier", "1.5", "--jitter", "equal", "--max-wait", "none",
		"--attempt-timeout", "1s", "--timeout", "none"}},
	{"envoy-linear", []string{"--format", "envoy", "--backoff", "linear", "--base", "500ms", "--max-delay", "2s"}},
	{"istio-default", []string{"--format", "istio", "--attempts", "4", "--attempt-timeout", "2s", "--timeout", "10s"}},
	{"istio-strict", []string{"--format", "istio", "--base", "25ms", "--max-delay", "250ms", "--strict"}},
	{"istio-milliseconds", []string{"--format", "istio", "--timeout", "1500us", "--attempt-timeout", "700us"}},
	// --retry-on, as retry http takes it (plan had no such flag: every export retried the
	// default statuses).
	{"envoy-retry-on", []string{"--format", "envoy", "--retry-on", "429,503"}},
	{"envoy-retry-on-none", []string{"--format", "envoy", "--retry-on", "none"}},
	{"istio-retry-on", []string{"--format", "istio", "--retry-on", "503"}},
}

func TestPlanExportGolden(t *testing.T) {
	for _, tt := range exportCases {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"plan"}, tt.args...)
			code, stdout, stderr := runCLI(t, args...)
			got := fmt.Sprintf("$ retry %s\n%s--- stderr\n%s--- exit %d\n", strings.Join(args, " "), stdout, stderr, code)
			path := filepath.Join("testdata", "plan-export", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the golden file %s:\n%s", strings.Join(args, " "), path, got)
			}
		})
	}
}

// The gRPC service config alone goes to stdout, so that a script can pipe it; the warnings
// go to stderr. --strict writes nothing and exits 2 when anything is lost.
func TestPlanExportStreams(t *testing.T) {
	code, stdout, stderr := runCLI(t, "plan", "--format", "grpc", "--attempts", "7")
	if code != 0 || !strings.HasPrefix(stdout, "{\n  \"methodConfig\"") || strings.Contains(stdout, "warning") ||
		!strings.Contains(stdout, `"maxAttempts": 7,`) {
		t.Errorf("exit %d, stdout %q: want 0 and the JSON alone, with maxAttempts 7", code, stdout)
	}
	if !strings.Contains(stderr, "retry plan: warning: grpc cannot express --attempts 7: grpc-go lowers maxAttempts to 5 unless the channel is dialled with grpc.WithMaxCallAttempts(7) or more\n") {
		t.Errorf("stderr %q does not name --attempts 7", stderr)
	}
	code, stdout, stderr = runCLI(t, "plan", "--format", "envoy", "--multiplier", "3", "--strict")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "envoy cannot express --multiplier 3: Envoy doubles") ||
		!strings.HasSuffix(stderr, "retry plan: --strict: envoy cannot express the whole policy (4 warnings above); nothing written\n") {
		t.Errorf("--strict: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestPlanFormatUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--format", "yaml"}, `retry plan: --format "yaml" is invalid: want one of table, json, grpc, envoy, istio`},
		{[]string{"plan", "--json", "--format", "grpc"}, "retry plan: --json and --format grpc do not go together: --json is --format json"},
		// --format table given with --json used to print JSON silently.
		{[]string{"plan", "--json", "--format", "table"}, "retry plan: --json and --format table do not go together: --json is --format json"},
		{[]string{"plan", "--strict"}, "retry plan: --strict applies to --format grpc, envoy or istio, not table"},
		{[]string{"plan", "--retry-on", "503"}, "retry plan: --retry-on applies to --format envoy or istio, not table"},
		{[]string{"plan", "--format", "grpc", "--retry-on", "503"}, "retry plan: --retry-on applies to --format envoy or istio, not grpc"},
		{[]string{"plan", "--format", "grpc", "--base", "0s"}, "retry plan: --base 0s cannot be exported to gRPC: its initialBackoff must be above zero"},
	} {
		code, stdout, stderr := runCLI(t, tt.args...)
		if first, _, _ := strings.Cut(stderr, "\n"); code != 2 || stdout != "" || first != tt.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
}

// --format json is --json.
func TestPlanFormatJSONIsJSON(t *testing.T) {
	_, viaFormat, _ := runCLI(t, "plan", "--format", "json")
	_, viaFlag, _ := runCLI(t, "plan", "--json")
	if _, both, _ := runCLI(t, "plan", "--json", "--format", "json"); both != viaFlag {
		t.Errorf("plan --json --format json printed %q, want what --json prints", both)
	}
	if viaFormat != viaFlag || !strings.HasPrefix(viaFormat, "{") {
		t.Errorf("--format json %q, --json %q", viaFormat, viaFlag)
	}
}

// protoDuration writes every duration so that it reads back exactly (Go's ParseDuration
// reads the protobuf JSON form, seconds with up to nine decimals).
func TestProtoDurationRoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := time.Duration(rapid.Int64Range(0, math.MaxInt64).Draw(t, "d"))
		s := protoDuration(d)
		back, err := time.ParseDuration(s)
		if err != nil || back != d || !strings.HasSuffix(s, "s") {
			t.Fatalf("protoDuration(%d) = %q, reads back as %v, %v", d, s, back, err)
		}
	})
}
