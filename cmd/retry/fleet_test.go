//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/retrykit/retry/redisfleet"
	"github.com/retrykit/retry/redisfleet/redistest"
)

// Bad --breaker, --budget and --fleet values exit 2 naming the flag, and never show a
// password, even one in a malformed URL.
func TestFleetFlagsUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--breaker", "failures=0"}, "--breaker failures=0: want a whole number from 1"},
		{[]string{"--breaker", "fails=3"}, `"fails=3" is not a setting: want on, or KEY=VALUE,... with KEY among failures, open-timeout`},
		{[]string{"--breaker", "failures=3,failures=4"}, "failures given twice"},
		{[]string{"--breaker", "window=1ms,failures=0"}, "--breaker window=1ms: want a duration of at least 100ms"}, // the first bad one as written
		{[]string{"--budget", "min-retries-per-second=NaN,ratio=0"}, "--budget min-retries-per-second=NaN: want a positive number"},
		{[]string{"--breaker", "min-calls=5"}, "failure-rate, min-calls and window are the fleet's rule: they need --fleet"},
		{[]string{"--breaker", ""}, "--breaker is empty: want on, or KEY=VALUE,... (leave the flag out for none)"}, // was no breaker, silently
		{[]string{"--budget", ""}, "--budget is empty: want on, or KEY=VALUE,... (leave the flag out for the default budget, or give off for none)"},
		{[]string{"--budget", "ratio=2"}, "--budget ratio=2: want a ratio in (0, 1]"},
		{[]string{"--budget", "window=1ms"}, "--budget window=1ms: want a duration of at least 10ms"},
		// A bad URL is shown redacted, with what is wrong (it used to be "not a redis://
		// URL with a host" whatever the fault, without the value).
		{[]string{"--fleet", "redis//user:sekret@host"}, `--fleet "REDACTED@host" is invalid: no scheme; want redis://[user:password@]HOST:PORT/DB or rediss://...`},
		{[]string{"--fleet", "http://user:sekret@host:6379/0", "--fleet-key", "k"}, `--fleet "http://REDACTED@host:6379/0" is invalid: scheme "http" is not supported; want redis://`},
		{[]string{"--fleet", "redis://:sekret@127.0.0.1:bad/0?password=sekret", "--fleet-key", "k"}, `--fleet "redis://REDACTED@127.0.0.1:bad/0?password=REDACTED" is invalid: invalid port ":bad" after host; want redis://`},
		{[]string{"--fleet", "redis:///0", "--fleet-key", "k"}, `--fleet "redis:///0" is invalid: no host; want redis://`},
		{[]string{"--fleet", "redis://:sekret@127.0.0.1:6379/0?password=sekret", "--fleet-key", "k"},
			"--fleet redis://REDACTED@127.0.0.1:6379/0?password=REDACTED: redisfleet: the URL is invalid: unexpected option: password; want"},
		{[]string{"--fleet", "redis://user:sekret@host:6379/zero", "--fleet-key", "k"}, `--fleet redis://REDACTED@host:6379/zero: the database "zero" is not a number`},
		{[]string{"--fleet", "rediss://:sekret@host:6379/0"}, "--fleet rediss://REDACTED@host:6379/0 needs --fleet-key NAME"},
		{[]string{"--fleet-key", "k"}, `--fleet-key "k" needs --fleet URL`},
	} {
		for _, sub := range [][]string{{"http"}, {"run"}} {
			args := append(append(append([]string{}, sub...), tc.args...), "--attempts", "1")
			if sub[0] == "http" {
				args = append(args, "http://127.0.0.1:1/")
			} else {
				args = append(args, "--", "true")
			}
			r := runBin(t, "", args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "sekret") {
				t.Errorf("retry %s: exit %d, stderr %q; want 2 and %q, no password", strings.Join(args, " "), r.code, r.stderr, tc.want)
			}
		}
	}
}

// A Redis that cannot be reached is not an error: the process shares with the processes
// of its machine through a file under the user's cache directory (issue 33: a script's
// processes keep to the API's pace while Redis is down), and says so once, with the
// password redacted. Where the file cannot be used either (not a directory, a FIFO), it
// decides locally, says so once with both reasons, and the records say fleet_stale.
func TestFleetUnreachableIsShared(t *testing.T) {
	args := []string{"run", "--fleet", "redis://:sekret@127.0.0.1:1/0", "--fleet-key", "job", "--budget", "on",
		"--attempts", "2", "--base", "1ms", "--log", "json", "--", "false"}
	cache := t.TempDir()
	blocked := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fifoCache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", fifoCache)
	opts, err := redis.ParseURL("redis://:sekret@127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	fifo, err := machineStorePath(opts, "job")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(fifo), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cache, said string
		stale       int
	}{
		{cache, "): sharing with this machine's processes through " + cache + "/retry/fleet/", 0},
		{blocked, "; the machine's file " + blocked + "/retry/fleet/", 2},
		{fifoCache, "; the machine's file " + fifo + ": not a regular file (prw-------)): deciding locally", 2}, // it used to block for good
	} {
		cmd := exec.Command(retryBin, args...)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+c.cache)
		r := runProcess(t, cmd, "")
		if r.code != 1 || strings.Contains(r.stderr, "sekret") {
			t.Fatalf("exit %d, stderr %q; want 1 (false's status), no password", r.code, r.stderr)
		}
		if strings.Count(r.stderr, "cannot be used") != 1 || !strings.HasPrefix(r.stderr, "retry: --fleet redis://REDACTED@127.0.0.1:1/0 cannot be used (") ||
			!strings.Contains(r.stderr, c.said) {
			t.Errorf("stderr %q: want the unreachable fleet said once, %q", r.stderr, c.said)
		}
		if n := strings.Count(r.stderr, `"fleet_stale":true`); n != c.stale {
			t.Errorf("stderr %q: want %d records with fleet_stale", r.stderr, c.stale)
		}
	}
}

// Issue 10, test 6, end to end: retry http --fleet processes against nginx whose upstream is
// dead (502). The first two processes fail 3 times each; from then on the fleet's failure
// rate (6 calls, all failed) opens the breaker, and new processes, one at a time or eight
// at once, stop before sending anything: circuit_open, exit 3.
func TestFleetEndToEndNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the end-to-end fleet test against nginx and redis-server")
	}
	ngx := startNginx(t)
	rds := redistest.Start(t)
	args := []string{"http", "--fleet", rds.URL(), "--fleet-key", "e2e", "--breaker", "failures=3,min-calls=6",
		"--attempts", "3", "--base", "10ms", "--log", "json", ngx.url + "/bad-gateway"}
	for i := range 2 {
		r := runBin(t, "", args...)
		if r.code != 3 || strings.Count(r.stderr, `"status":502`) != 3 {
			t.Fatalf("process %d: exit %d, stderr %q; want 3 after three 502s", i+1, r.code, r.stderr)
		}
	}
	if got := ngx.requests(t, "/bad-gateway")["502"]; got != 6 {
		t.Fatalf("nginx saw %d requests from the first two processes, want 6", got)
	}
	check := func(r result) {
		t.Helper()
		if r.code != 3 || !strings.Contains(r.stderr, `"reason":"circuit_open"`) || !strings.Contains(r.stderr, `"breaker":"OPEN"`) ||
			!strings.Contains(r.stderr, `"fleet_age_ms"`) || strings.Contains(r.stderr, `"status"`) {
			t.Errorf("exit %d, stderr %q; want circuit_open before any request, exit 3", r.code, r.stderr)
		}
	}
	check(runBin(t, "", args...))
	results := make([]result, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { results[i] = runBin(t, "", args...) })
	}
	wg.Wait()
	for _, r := range results {
		check(r)
	}
	if got := ngx.requests(t, "/bad-gateway")["502"]; got != 6 {
		t.Errorf("nginx saw %d requests in all, want 6: no process sent any once the fleet opened", got)
	}
}

// A Redis that refuses the exchange is said with the reason, as one that cannot be reached
// is: a wrong password (WRONGPASS), and none where one is required (Redis's own answer, a
// protocol error about the script call's length, used to be the only reason given, under
// "cannot be reached"). The process decides locally; the password is never shown.
func TestFleetRefusingRedisIsSaidWithTheReason(t *testing.T) {
	s := redistest.Start(t)
	admin, err := redisfleet.NewClient(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx := context.Background()
	if err := admin.ConfigSet(ctx, "requirepass", "right-sekret").Err(); err != nil {
		t.Fatal(err)
	}
	authed, err := redisfleet.NewClient("redis://:right-sekret@" + s.Addr() + "/0")
	if err != nil {
		t.Fatal(err)
	}
	defer authed.Close()
	t.Cleanup(func() { authed.ConfigSet(ctx, "requirepass", "") })
	for _, tc := range []struct{ url, shown, reason string }{
		{"redis://:wrong-sekret@" + s.Addr() + "/0", "redis://REDACTED@" + s.Addr() + "/0", "(redisfleet: WRONGPASS invalid username-password pair"},
		{s.URL(), s.URL(), "(redisfleet: Redis requires a password, and the URL gives none"},
	} {
		r := runBin(t, "", "run", "--fleet", tc.url, "--fleet-key", "job", "--log", "json", "--", "true")
		want := "retry: --fleet " + tc.shown + " cannot be used " + tc.reason
		if r.code != 0 || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "cannot be used") != 1 ||
			!strings.Contains(r.stderr, `"fleet_stale":true`) || strings.Contains(r.stderr, "sekret") {
			t.Errorf("--fleet %s: exit %d, stderr %q; want 0, a first line starting %q, local decisions, no password", tc.shown, r.code, r.stderr, want)
		}
	}
}
