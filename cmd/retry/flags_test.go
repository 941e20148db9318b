package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/spf13/pflag"
)

// runCLI runs the command line in-process and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestBadFlagsExitTwoNamingFlagValueAndAllowed(t *testing.T) {
	const durationWant = "want a Go duration such as 500ms, 2s or 1m30s"
	tests := []struct {
		args []string
		want string // the first line of stderr
	}{
		{[]string{"plan", "--timeout", "abc"}, `retry plan: --timeout "abc" is invalid: ` + durationWant + `, greater than zero, or "none" for no limit`},
		{[]string{"plan", "--timeout", "0s"}, `retry plan: --timeout "0s" is invalid: ` + durationWant + `, greater than zero, or "none" for no limit`},
		{[]string{"plan", "--base", "-1s"}, `retry plan: --base "-1s" is invalid: ` + durationWant + `, zero or more`},
		{[]string{"plan", "--base", "10"}, `retry plan: --base "10" is invalid: ` + durationWant + `, zero or more`},
		{[]string{"plan", "--max-delay", "soon"}, `retry plan: --max-delay "soon" is invalid: ` + durationWant + `, zero or more`},
		{[]string{"plan", "--attempt-timeout", "1x"}, `retry plan: --attempt-timeout "1x" is invalid: ` + durationWant + `, zero or more`},
		{[]string{"plan", "--max-wait", "none please"}, `retry plan: --max-wait "none please" is invalid: ` + durationWant + `, greater than zero, or "none" for no limit`},
		{[]string{"plan", "--attempts", "0"}, `retry plan: --attempts "0" is invalid: want a whole number from 1 to 1000`},
		{[]string{"plan", "--attempts", "three"}, `retry plan: --attempts "three" is invalid: want a whole number from 1 to 1000`},
		{[]string{"plan", "--attempts", "1001"}, `retry plan: --attempts "1001" is invalid: want a whole number from 1 to 1000`},
		{[]string{"plan", "--jitter", "fuzzy"}, `retry plan: --jitter "fuzzy" is invalid: want one of full, equal, decorrelated, proportional, additive, none`},
		{[]string{"plan", "--backoff", "Exponential"}, `retry plan: --backoff "Exponential" is invalid: want one of exponential, linear, constant`},
		{[]string{"plan", "--seed", "-1"}, `retry plan: --seed "-1" is invalid: want a whole number from 0 to 18446744073709551615`},
		{[]string{"plan", "--base", "2s", "--max-delay", "1s"}, `retry plan: --max-delay 1s is below --base 2s: the cap must be at least the base`},
		{[]string{"plan", "--multiplier", "0.5"}, `retry plan: --multiplier "0.5" is invalid: want a number of at least 1, such as 1.5 or 2`},
		{[]string{"plan", "--multiplier", "NaN"}, `retry plan: --multiplier "NaN" is invalid: want a number of at least 1, such as 1.5 or 2`},
		{[]string{"plan", "--multiplier", "Inf"}, `retry plan: --multiplier "Inf" is invalid: want a number of at least 1, such as 1.5 or 2`},
		{[]string{"plan", "--multiplier", "x2"}, `retry plan: --multiplier "x2" is invalid: want a number of at least 1, such as 1.5 or 2`},
		{[]string{"plan", "--backoff", "linear", "--multiplier", "1.5"}, `retry plan: --multiplier 1.5 applies to --backoff exponential only, not linear`},
		{[]string{"plan", "--nope"}, `retry plan: unknown flag: --nope`},
		{[]string{"plan", "extra"}, `retry plan: plan takes no arguments, got 1 (its settings are flags)`},
		{[]string{"run", "--log", "xml", "--", "true"}, `retry run: --log "xml" is invalid: want one of text, json`},
		{[]string{"run", "--retry-on-exit", "0", "--", "true"}, `retry run: --retry-on-exit "0" is invalid: want a comma-separated list of exit codes from 1 to 255, such as 1,75, or "any"`},
		{[]string{"run", "--retry-on-exit", "1,,2", "--", "true"}, `retry run: --retry-on-exit "1,,2" is invalid: want a comma-separated list of exit codes from 1 to 255, such as 1,75, or "any"`},
		{[]string{"run", "--stdin", "all", "--", "true"}, `retry run: --stdin "all" is invalid: want one of first, replay, none`},
		{[]string{"run"}, `retry run: missing command: give it after --, as in retry run [flags] -- CMD [ARG]`},
		{[]string{"http"}, `retry http: want exactly one URL, got 0 arguments`},
		{[]string{"http", "example.com"}, `retry http: URL "example.com" is invalid: want an absolute http:// or https:// URL`},
		{[]string{"http", "ftp://example.com/"}, `retry http: URL "ftp://example.com/" is invalid: scheme "ftp" is not supported; want an absolute http:// or https:// URL`},
		{[]string{"http", "http://127.0.0.1:18081/%zz"}, `retry http: URL "http://127.0.0.1:18081/%zz" is invalid: invalid URL escape "%zz"`},
		{[]string{"http", "http://127.0.0.1:bad/"}, `retry http: URL "http://127.0.0.1:bad/" is invalid: invalid port ":bad" after host`},
		{[]string{"http", "127.0.0.1:8080"}, `retry http: URL "127.0.0.1:8080" is invalid: want an absolute http:// or https:// URL`},
		{[]string{"http", "127.0.0.1:8080/x"}, `retry http: URL "127.0.0.1:8080/x" is invalid: want an absolute http:// or https:// URL`},
		{[]string{"http", "localhost:8080/x?token=abc"}, `retry http: URL "localhost:8080/x?token=REDACTED" is invalid: want an absolute http:// or https:// URL`},
		{[]string{"http", "-H", "NoColon", "http://127.0.0.1:1/"}, `retry http: --header #1 (not shown: it may hold a secret) is invalid: no ':' between name and value; want 'Name: value'`},
		{[]string{"http", "-H", "X-A: 1", "-H", "Bad Name: x", "http://127.0.0.1:1/"}, `retry http: --header #2 (not shown: it may hold a secret) is invalid: the name holds ' '; want a name of letters, digits and !#$%&'*+-.^_` + "`" + `|~`},
		{[]string{"http", "-H", ": x", "http://127.0.0.1:1/"}, `retry http: --header #1 (not shown: it may hold a secret) is invalid: the name is empty; want 'Name: value'`},
		{[]string{"http", "-H", "Authorization: Bearer x\nX", "http://127.0.0.1:1/"}, `retry http: --header "Authorization: REDACTED" is invalid: the value holds '\n'; a header value cannot hold CR, LF or NUL`},
		{[]string{"http", "-X", "GE T", "http://127.0.0.1:1/"}, `retry http: --request "GE T" is invalid: want an HTTP method such as GET, POST or PUT`},
		{[]string{"http", "-d", "@/nonexistent/file", "http://127.0.0.1:1/"}, `retry http: --data "@/nonexistent/file": open /nonexistent/file: no such file or directory`},
		{[]string{"http", "--retry-on", "429,abc", "http://127.0.0.1:1/"}, `retry http: --retry-on "429,abc" is invalid: want a comma-separated list of HTTP statuses from 100 to 599, such as 429,503, or "none"`},
		{[]string{"http", "--retry-on", "600", "http://127.0.0.1:1/"}, `retry http: --retry-on "600" is invalid: want a comma-separated list of HTTP statuses from 100 to 599, such as 429,503, or "none"`},
		{[]string{"http", "--idempotency-key", "has space", "http://127.0.0.1:1/"}, `retry http: --idempotency-key (not shown: it may hold a secret) is invalid: want "auto" or a key of 1 to 255 visible ASCII characters`},
		{[]string{"http", "--attempts", "-3", "http://127.0.0.1:1/"}, `retry http: --attempts "-3" is invalid: want a whole number from 1 to 1000`},
		{[]string{"demo", "extra"}, `retry demo: demo takes no arguments, got 1 (its settings are flags)`},
		{[]string{}, `retry: missing subcommand`},
		{[]string{"fly"}, `retry: unknown command "fly" for "retry"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d", code, exitUsage)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			first, rest, _ := strings.Cut(stderr, "\n")
			if first != tt.want {
				t.Errorf("stderr's first line\n got %s\nwant %s", first, tt.want)
			}
			if !strings.HasPrefix(rest, "Run '") || !strings.Contains(rest, "--help' for usage.") {
				t.Errorf("stderr does not point to --help: %q", rest)
			}
		})
	}
}

// TestBadInputNeverEchoesSecrets runs every kind of bad URL and header with a secret in
// the user info, the query, the fragment or a header value: the message says what is wrong
// and the secret appears nowhere in stdout or stderr.
func TestBadInputNeverEchoesSecrets(t *testing.T) {
	const secret = "SEKRIT42"
	const hidden = "(not shown: it may hold a secret)"
	tests := []struct {
		args []string
		want string // the first line of stderr
	}{
		{[]string{"http", "http://user:SEKRIT42-pw@127.0.0.1:bad/?token=SEKRIT42-b"},
			`retry http: URL "http://REDACTED@127.0.0.1:bad/?token=REDACTED" is invalid: invalid port ":bad" after host`},
		{[]string{"http", "http://user:SEKRIT42-pw@127.0.0.1/%zz?page=SEKRIT42-q#access_token=SEKRIT42-f"},
			`retry http: URL "http://REDACTED@127.0.0.1/%zz?page=REDACTED" is invalid: invalid URL escape "%zz"`},
		{[]string{"http", "http://user:SEKRIT42-e%zz@127.0.0.1/"},
			`retry http: URL "http://REDACTED@127.0.0.1/" is invalid: the user info has a bad %-escape ` + hidden},
		{[]string{"http", "http://us er:SEKRIT42-s@127.0.0.1/"},
			`retry http: URL "http://REDACTED@127.0.0.1/" is invalid: the user info is malformed ` + hidden},
		{[]string{"http", "http://user:SEKRIT42/x@127.0.0.1/"},
			`retry http: URL "http://REDACTED@127.0.0.1/" is invalid: the user info is malformed ` + hidden},
		{[]string{"http", "http://127.0.0.1/#access_token=SEKRIT42-h%zz"},
			`retry http: URL "http://127.0.0.1/" is invalid: the fragment has a bad %-escape ` + hidden},
		{[]string{"http", "http://127.0.0.1/?token=SEKRIT42-c\x7f"},
			`retry http: URL "http://127.0.0.1/?token=REDACTED" is invalid: the query is malformed ` + hidden},
		{[]string{"http", "http://[::1/?token=SEKRIT42-v6"},
			`retry http: URL "http://[::1/?token=REDACTED" is invalid: missing ']' in host`},
		{[]string{"http", "ftp://user:SEKRIT42-f@example.com/?token=SEKRIT42-q"},
			`retry http: URL "ftp://REDACTED@example.com/?token=REDACTED" is invalid: scheme "ftp" is not supported; want an absolute http:// or https:// URL`},
		{[]string{"http", "SEKRIT42-u:SEKRIT42-p@127.0.0.1/?token=SEKRIT42-o"},
			`retry http: URL "REDACTED@127.0.0.1/?token=REDACTED" is invalid: want an absolute http:// or https:// URL`},
		{[]string{"http", "http:/user:SEKRIT42-p@127.0.0.1/"},
			`retry http: URL "REDACTED@127.0.0.1/" is invalid: want an absolute http:// or https:// URL`},
		{[]string{"http", "http:///?token=SEKRIT42-n"},
			`retry http: URL "http:///?token=REDACTED" is invalid: want an absolute http:// or https:// URL`},
		{[]string{"http", "-H", "Authorization Bearer SEKRIT42-g", "http://127.0.0.1:1/"},
			`retry http: --header #1 ` + hidden + ` is invalid: no ':' between name and value; want 'Name: value'`},
		{[]string{"http", "-H", "Authorization: Bearer SEKRIT42-n\nX", "http://127.0.0.1:1/"},
			`retry http: --header "Authorization: REDACTED" is invalid: the value holds '\n'; a header value cannot hold CR, LF or NUL`},
		{[]string{"http", "-H", "Cookie: a=SEKRIT42-r\rX", "http://127.0.0.1:1/"},
			`retry http: --header "Cookie: REDACTED" is invalid: the value holds '\r'; a header value cannot hold CR, LF or NUL`},
		{[]string{"http", "-H", "Authorization Bearer SEKRIT42-c: x", "http://127.0.0.1:1/"},
			`retry http: --header #1 ` + hidden + ` is invalid: the name holds ' '; want a name of letters, digits and !#$%&'*+-.^_` + "`" + `|~`},
		{[]string{"http", "-WSEKRIT42", "http://127.0.0.1:1/"},
			`retry http: unknown shorthand flag -W (the rest of its argument is ` + hidden + `)`},
		{[]string{"http", "-iWSEKRIT42", "http://127.0.0.1:1/"},
			`retry http: unknown shorthand flag -W (the rest of its argument is ` + hidden + `)`},
		{[]string{"http", "-iZSEKRIT42", "http://127.0.0.1:1/"}, // curl's -Z: named as curl's
			`retry http: -Z (curl's --parallel) is a curl flag that retry http does not take; the curl flags it takes are listed under "curl's flags" in retry http --help`},
		{[]string{"http", "-u", "SEKRIT42-u", "http://127.0.0.1:1/"},
			`retry http: --user ` + hidden + ` is invalid: want USER:PASSWORD (retry http does not prompt for a password, as curl does)`},
		{[]string{"-ZSEKRIT42"}, `retry: unknown shorthand flag -Z (the rest of its argument is ` + hidden + `)`},
		{[]string{"http", "--token=SEKRIT42", "http://127.0.0.1:1/"}, `retry http: unknown flag: --token`},
		{[]string{"http", "--idempotency-key", "SEKRIT42 k", "http://127.0.0.1:1/"},
			`retry http: --idempotency-key ` + hidden + ` is invalid: want "auto" or a key of 1 to 255 visible ASCII characters`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d", code, exitUsage)
			}
			if first, _, _ := strings.Cut(stderr, "\n"); first != tt.want {
				t.Errorf("stderr's first line\n got %s\nwant %s", first, tt.want)
			}
			if strings.Contains(strings.ToUpper(stdout+stderr), secret) {
				t.Errorf("the secret is echoed: stdout %q, stderr %q", stdout, stderr)
			}
		})
	}
}

// parsePolicy parses args as policy flags and returns the policy.
func parsePolicy(t *testing.T, args ...string) retry.Policy {
	t.Helper()
	var f policyFlags
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	p, err := f.policy()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPolicyFlagsMapToPolicy(t *testing.T) {
	p := parsePolicy(t, "--attempts", "6", "--backoff", "linear", "--base", "250ms",
		"--max-delay", "2s", "--jitter", "equal", "--timeout", "none", "--attempt-timeout", "3s",
		"--max-wait", "5s", "--seed", "42")
	wantStrategy, _ := backoff.New(backoff.Config{Kind: backoff.Linear, Base: 250 * time.Millisecond,
		Max: 2 * time.Second, Jitter: backoff.EqualJitter})
	if p.MaxAttempts != 6 || p.Timeout != retry.NoLimit || p.AttemptTimeout != 3*time.Second ||
		p.MaxWait != 5*time.Second || p.Backoff != wantStrategy {
		t.Errorf("policy %+v", p)
	}
	if got, want := p.Random.Uint64(), backoff.NewSource(42).Uint64(); got != want {
		t.Errorf("Random is not NewSource(42): first draw %d, want %d", got, want)
	}
}

func TestPolicyFlagDefaultsAreTheLibrarys(t *testing.T) {
	p := parsePolicy(t)
	if p.MaxAttempts != retry.DefaultMaxAttempts || p.Timeout != retry.DefaultTimeout ||
		p.MaxWait != retry.DefaultMaxWait || p.AttemptTimeout != 0 || p.Backoff != retry.DefaultBackoff || p.Random != nil {
		t.Errorf("default policy %+v", p)
	}
}

// TestEveryListWordIsInTheHelp: a word that a list flag accepts instead of codes ("any",
// "none"), and that its error message names, is documented in the flag's help.
func TestEveryListWordIsInTheHelp(t *testing.T) {
	for _, c := range newRootCommand().Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if v, ok := f.Value.(codeListValue); ok && !strings.Contains(f.Usage, "or "+v.word) {
				t.Errorf("%s --%s accepts %q, but its help does not say so: %q", c.Name(), f.Name, v.word, f.Usage)
			}
		})
	}
}

func TestMultiplierFlag(t *testing.T) {
	p := parsePolicy(t, "--base", "1s", "--multiplier", "1.6", "--max-delay", "2m")
	want, _ := backoff.New(backoff.Config{Base: time.Second, Max: 2 * time.Minute, Multiplier: 1.6})
	if p.Backoff != want {
		t.Errorf("strategy %v, want %v", p.Backoff, want)
	}
	if got := p.Backoff.Ceiling(2); got != 2560*time.Millisecond {
		t.Errorf("ceiling of retry 2 = %v, want 2.56s", got)
	}
	// Not given, it is the library's 2 for exponential and absent for the other kinds.
	if p := parsePolicy(t, "--backoff", "constant", "--base", "1s"); p.Backoff.Multiplier() != 0 {
		t.Errorf("constant backoff has multiplier %v", p.Backoff.Multiplier())
	}
}

func TestMaxDelayDefaultFollowsALargerBase(t *testing.T) {
	p := parsePolicy(t, "--base", "1m", "--backoff", "constant")
	if got := p.Backoff.Ceiling(3); got != time.Minute {
		t.Errorf("ceiling %v, want 1m", got)
	}
}

func FuzzDurationFlag(f *testing.F) {
	for _, s := range []string{"500ms", "2s", "1m30s", "none", "-1s", "0", "1e9h", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d time.Duration
		v := durationValue{d: &d, min: 1, none: &noLimit}
		if err := v.Set(s); err != nil {
			if !strings.HasPrefix(err.Error(), "want a Go duration") {
				t.Errorf("error %q", err)
			}
			return
		}
		if d != retry.NoLimit && d < 1 {
			t.Errorf("Set(%q) accepted %v", s, d)
		}
	})
}

func FuzzCodeListFlag(f *testing.F) {
	for _, s := range []string{"429,503", "any", "0", "1,,2", " 7 ", "256"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var codes []int
		v := codeListValue{codes: &codes, min: 1, max: 255, what: "exit codes", example: "1", word: "any"}
		if err := v.Set(s); err != nil {
			return
		}
		for _, c := range codes {
			if c < 1 || c > 255 {
				t.Errorf("Set(%q) accepted %d", s, c)
			}
		}
	})
}
