//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// jsonRecords parses stderr's lines as decision records.
func jsonRecords(t *testing.T, r result) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range r.lines() {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("stderr line %q is not a JSON record: %v", line, err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// reasons returns the records' decision:reason pairs.
func reasons(recs []map[string]any) string {
	var out []string
	for _, r := range recs {
		out = append(out, r["decision"].(string)+":"+r["reason"].(string))
	}
	return strings.Join(out, " ")
}

func TestRunRetriesUntilSuccessWithAttemptInEnvironment(t *testing.T) {
	r := runBin(t, "", "run", "--attempts", "5", "--base", "1ms", "--log", "json", "--",
		"sh", "-c", `echo "attempt $RETRY_ATTEMPT"; test "$RETRY_ATTEMPT" -ge 3`)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	if r.stdout != "attempt 1\nattempt 2\nattempt 3\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	recs := jsonRecords(t, r)
	if got := reasons(recs); got != "retry:retryable_error retry:retryable_error stop:success" {
		t.Errorf("records %s", got)
	}
	if recs[0]["error"] != "exit status 1" || recs[0]["attempt"] != 1.0 || recs[2]["outcome"] != "success" {
		t.Errorf("first record %v, last %v", recs[0], recs[2])
	}
}

func TestRunExitsWithTheLastAttemptsStatus(t *testing.T) {
	r := runBin(t, "", "run", "--attempts", "3", "--base", "1ms", "--", "sh", "-c", "exit 7")
	if r.code != 7 {
		t.Errorf("exit %d, want 7", r.code)
	}
	want := []string{"attempt=1 error=\"exit status 7\" decision=retry reason=retryable_error",
		"attempt=2 error=\"exit status 7\" decision=retry reason=retryable_error",
		"attempt=3 error=\"exit status 7\" decision=stop reason=attempts_exhausted"}
	lines := r.lines()
	if len(lines) != 3 {
		t.Fatalf("stderr %q", r.stderr)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], "retry: "+w+" ") {
			t.Errorf("line %d: %q, want prefix %q", i, lines[i], w)
		}
	}
}

func TestRunRetryOnExitStopsOnOtherStatuses(t *testing.T) {
	r := runBin(t, "", "run", "--retry-on-exit", "75", "--base", "1ms", "--log", "json", "--", "sh", "-c", "exit 3")
	if r.code != 3 || reasons(jsonRecords(t, r)) != "stop:non_retryable_error" {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
	r = runBin(t, "", "run", "--retry-on-exit", "75,3", "--attempts", "2", "--base", "1ms", "--log", "json", "--", "sh", "-c", "exit 3")
	if r.code != 3 || reasons(jsonRecords(t, r)) != "retry:retryable_error stop:attempts_exhausted" {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
}

func TestRunMissingCommandExits127(t *testing.T) {
	r := runBin(t, "", "run", "--quiet", "--", "/nonexistent/command")
	if r.code != 127 || !strings.Contains(r.stderr, "/nonexistent/command") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestRunQuietPrintsNoRecords(t *testing.T) {
	r := runBin(t, "", "run", "--quiet", "--attempts", "2", "--base", "1ms", "--", "false")
	if r.code != 1 || r.stderr != "" {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// processGone reports whether pid has exited (or is a zombie waiting for its reaper).
func processGone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(after, "Z")
}

func TestRunOverallTimeoutKillsTheProcessGroupAndExits124(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := runBin(t, "", "run", "--timeout", "300ms", "--log", "json", "--",
		"sh", "-c", "sleep 30 & echo $! > "+pidFile+"; wait")
	if r.code != 124 {
		t.Errorf("exit %d, want 124; stderr %s", r.code, r.stderr)
	}
	if got := reasons(jsonRecords(t, r)); got != "stop:deadline_exceeded" {
		t.Errorf("records %s", got)
	}
	if r.elapsed > 5*time.Second {
		t.Errorf("took %v", r.elapsed)
	}
	pid, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(pid)))
	deadline := time.Now().Add(2 * time.Second)
	for !processGone(n) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !processGone(n) {
		t.Errorf("the attempt's background process %d survived", n)
		syscall.Kill(n, syscall.SIGKILL)
	}
}

func TestRunAttemptTimeoutIsRetried(t *testing.T) {
	r := runBin(t, "", "run", "--attempts", "3", "--attempt-timeout", "100ms", "--base", "1ms", "--log", "json", "--",
		"sh", "-c", `test "$RETRY_ATTEMPT" -ge 2 || sleep 30`)
	recs := jsonRecords(t, r)
	if r.code != 0 || reasons(recs) != "retry:retryable_error stop:success" {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	if recs[0]["error"] != "attempt timeout reached: process group killed" {
		t.Errorf("first record %v", recs[0])
	}
}

// TestRunAttemptTimeoutOnTheLastAttemptExits124: an attempt that --attempt-timeout killed,
// when no attempt follows, exits 124 as timeout(1) does, and the help says so.
func TestRunAttemptTimeoutOnTheLastAttemptExits124(t *testing.T) {
	r := runBin(t, "", "run", "--attempts", "1", "--attempt-timeout", "100ms", "--quiet", "--", "sleep", "30")
	if r.code != 124 || r.elapsed > 5*time.Second {
		t.Errorf("exit %d after %v, want 124 soon; stderr %s", r.code, r.elapsed, r.stderr)
	}
	_, help, _ := runCLI(t, "run", "--help")
	if want := "124 when a timeout (--timeout, or --attempt-timeout on the last attempt) ended the attempt"; !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
		t.Errorf("run --help does not say %q:\n%s", want, help)
	}
}

// startBin starts the retry binary and returns it with a reader of its stdout.
func startBin(t *testing.T, args ...string) (*exec.Cmd, *bufio.Reader, *syncBuffer) {
	t.Helper()
	c := exec.Command(retryBin, args...)
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := new(syncBuffer)
	c.Stderr = stderr
	c.WaitDelay = time.Second // a command left running holds stderr open
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c, bufio.NewReader(stdout), stderr
}

func waitExit(t *testing.T, c *exec.Cmd) int {
	t.Helper()
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("retry did not exit within 10 s")
	}
	return c.ProcessState.ExitCode()
}

func TestRunForwardsSIGINTToTheAttemptAndStops(t *testing.T) {
	c, stdout, stderr := startBin(t, "run", "--attempts", "5", "--base", "1ms", "--log", "json", "--",
		"sh", "-c", `trap 'echo got INT; exit 42' INT; echo ready; while :; do sleep 0.01; done`)
	if line, err := stdout.ReadString('\n'); line != "ready\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	c.Process.Signal(os.Interrupt)
	rest, _ := bufio.NewReader(stdout).ReadString(0)
	code := waitExit(t, c)
	if code != 42 {
		t.Errorf("exit %d, want the attempt's 42; stderr %s", code, stderr)
	}
	if !strings.Contains(rest, "got INT") {
		t.Errorf("the attempt did not get SIGINT: stdout %q", rest)
	}
	if got := reasons(jsonRecords(t, result{stderr: stderr.String()})); got != "stop:canceled" {
		t.Errorf("records %s", got)
	}
}

func TestRunSignalBetweenAttemptsEndsTheWait(t *testing.T) {
	c, stdout, stderr := startBin(t, "run", "--attempts", "3", "--base", "20s", "--jitter", "none", "--timeout", "1m", "--",
		"sh", "-c", "echo ran; exit 1")
	if line, _ := stdout.ReadString('\n'); line != "ran\n" {
		t.Fatalf("child said %q", line)
	}
	// The attempt has printed; give it a moment to exit and the loop to start waiting.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "decision=retry"); {
		if time.Now().After(deadline) {
			t.Fatalf("no retry decision within 10 s: stderr %s", stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	c.Process.Signal(syscall.SIGTERM)
	if code := waitExit(t, c); code != 128+15 {
		t.Errorf("exit %d, want 143; stderr %s", code, stderr)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("the 20 s wait was not cut short")
	}
	if !strings.Contains(stderr.String(), "reason=canceled") {
		t.Errorf("stderr %s", stderr)
	}
}

// readPID reads the line "pid N" that a child prints first.
func readPID(t *testing.T, stdout *bufio.Reader) int {
	t.Helper()
	line, err := stdout.ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "pid "))
	if err != nil || perr != nil {
		t.Fatalf("child said %q, %v", line, err)
	}
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) }) // the attempt leads its group
	return pid
}

// readRest returns what stdout gives until its end, or within 2 s: a command left running
// would keep the pipe open.
func readRest(stdout *bufio.Reader) string {
	got := make(chan string, 1)
	go func() {
		s, _ := stdout.ReadString(0)
		got <- s
	}()
	select {
	case s := <-got:
		return s
	case <-time.After(2 * time.Second):
		return "(the pipe stayed open)"
	}
}

// waitGone waits up to 2 s for pid to end and reports whether it did.
func waitGone(pid int) bool {
	for deadline := time.Now().Add(2 * time.Second); !processGone(pid) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	return processGone(pid)
}

// TestRunForwardsSIGHUPAndSIGQUIT: every signal that stops a job reaches the attempt and
// ends the loop; none leaves the attempt running as an orphan.
func TestRunForwardsSIGHUPAndSIGQUIT(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			c, stdout, stderr := startBin(t, "run", "--attempts", "5", "--base", "1ms", "--log", "json", "--",
				"sh", "-c", `trap 'echo got it; exit 42' HUP QUIT; echo pid $$; while :; do sleep 0.01; done 2>/dev/null`)
			pid := readPID(t, stdout)
			c.Process.Signal(sig)
			rest := readRest(stdout) // before Wait, which closes the pipe
			code := waitExit(t, c)
			if code != 42 || !strings.Contains(rest, "got it") {
				t.Errorf("exit %d, stdout %q: want the attempt's 42 after it got %v; stderr %s", code, rest, sig, stderr)
			}
			if got := reasons(jsonRecords(t, result{stderr: stderr.String()})); got != "stop:canceled" {
				t.Errorf("records %s", got)
			}
			if !waitGone(pid) {
				t.Errorf("the attempt %d survived", pid)
			}
		})
	}
	t.Run("default action", func(t *testing.T) {
		c, stdout, stderr := startBin(t, "run", "--quiet", "--", "sh", "-c", "echo pid $$; exec sleep 30")
		pid := readPID(t, stdout)
		c.Process.Signal(syscall.SIGHUP)
		if code := waitExit(t, c); code != 128+1 {
			t.Errorf("exit %d, want 129; stderr %s", code, stderr)
		}
		if !waitGone(pid) {
			t.Errorf("the attempt %d survived SIGHUP to retry", pid)
		}
	})
}

// TestRunDeadlineHoldsAfterAForwardedSignal: an attempt that ignores the forwarded signal is
// killed at its deadline, and the loop, ended by the signal, exits 128+N, never 0.
func TestRunDeadlineHoldsAfterAForwardedSignal(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		script string
		stdout string
		error  string
	}{
		{"overall timeout", []string{"--attempts", "3", "--timeout", "1s"},
			`trap "" TERM; echo pid $$; sleep 6; echo child-finished`, "",
			"terminated forwarded, then the overall timeout reached: process group killed"},
		{"attempt timeout", []string{"--attempts", "3", "--timeout", "none", "--attempt-timeout", "1s"},
			`trap "" TERM; echo pid $$; sleep 6; echo child-finished`, "",
			"terminated forwarded, then the attempt timeout reached: process group killed"},
		{"ignored, then success", []string{"--attempts", "3", "--timeout", "5s"},
			`trap "" TERM; echo pid $$; sleep 0.3; echo child-finished`, "child-finished\n",
			"terminated forwarded, then the command exited 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{"run", "--base", "1ms", "--log", "json"}, tc.args...), "--", "sh", "-c", tc.script)
			c, stdout, stderr := startBin(t, args...)
			readPID(t, stdout)
			start := time.Now()
			c.Process.Signal(syscall.SIGTERM)
			rest := readRest(stdout) // before Wait, which closes the pipe
			code := waitExit(t, c)
			if code != 128+15 {
				t.Errorf("exit %d, want 143; stderr %s", code, stderr)
			}
			if took := time.Since(start); took > 4*time.Second {
				t.Errorf("took %v: the deadline was not enforced", took)
			}
			if rest != tc.stdout {
				t.Errorf("stdout after the signal %q, want %q", rest, tc.stdout)
			}
			recs := jsonRecords(t, result{stderr: stderr.String()})
			if got := reasons(recs); got != "stop:canceled" || recs[0]["error"] != tc.error {
				t.Errorf("records %v", recs)
			}
		})
	}
}
