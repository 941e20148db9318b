//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// threeAttempts reads its standard input on each of 3 attempts, failing the first two.
var threeAttempts = []string{"--attempts", "3", "--base", "1ms", "--quiet", "--", "sh", "-c", `cat; test "$RETRY_ATTEMPT" -ge 3`}

// TestRunStdinModes (issue 25 item 5): printf hi | retry run -- sh -c cat gave the input to
// the first attempt only. --stdin first (the default) still does; replay gives all of it to
// every attempt; none gives nothing.
func TestRunStdinModes(t *testing.T) {
	for _, tc := range []struct {
		mode, want string
	}{
		{"default", "hi\n"},
		{"first", "hi\n"},
		{"replay", "hi\nhi\nhi\n"},
		{"none", ""},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			args := append([]string{"run"}, threeAttempts...)
			if tc.mode != "default" {
				args = append([]string{"run", "--stdin", tc.mode}, threeAttempts...)
			}
			r := runBin(t, "hi\n", args...)
			if r.code != 0 || r.stdout != tc.want {
				t.Errorf("exit %d, stdout %q; want 0, %q; stderr %s", r.code, r.stdout, tc.want, r.stderr)
			}
		})
	}
}

// TestRunStdinReplayOfARegularFile: a regular file on standard input is read again by every
// attempt from where it was when retry run began, whatever its size (here past the 16 MiB
// a pipe's input may hold).
func TestRunStdinReplayOfARegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(path, []byte("skip:"+strings.Repeat("x", maxReplayedStdin)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Seek(int64(len("skip:")), 0)
	c := exec.Command(retryBin, "run", "--stdin", "replay", "--attempts", "3", "--base", "1ms", "--quiet", "--",
		"sh", "-c", `wc -c | tr -d ' '; test "$RETRY_ATTEMPT" -ge 3`)
	c.Stdin = f
	r := runProcess(t, c, "")
	n := "16777216\n"
	if r.code != 0 || r.stdout != n+n+n {
		t.Errorf("exit %d, stdout %q; want 0, %q three times; stderr %s", r.code, r.stdout, n, r.stderr)
	}
}

// TestRunStdinReplayTooLarge: input on a pipe past 16 MiB stops retry run before anything
// runs, with exit 2 and a message that says so and what to do.
func TestRunStdinReplayTooLarge(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	r := runBin(t, strings.Repeat("x", maxReplayedStdin+1), "run", "--stdin", "replay", "--", "touch", marker)
	want := "retry run: --stdin replay: standard input is larger than 16 MiB, the most it keeps to give every attempt; " +
		"nothing was run: use --stdin first (the attempts share it), or redirect it from a file, which is read again whatever its size\n"
	if _, err := os.Stat(marker); r.code != 2 || r.stderr != want || err == nil {
		t.Errorf("exit %d, stderr %q, the command ran: %v; want 2, %q", r.code, r.stderr, err == nil, want)
	}
	r = runBin(t, strings.Repeat("x", maxReplayedStdin), "run", "--stdin", "replay", "--quiet", "--", "sh", "-c", "wc -c | tr -d ' '")
	if r.code != 0 || r.stdout != "16777216\n" {
		t.Errorf("16 MiB exactly: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
}

// openPipe returns the read end of a pipe whose write end stays open until the test ends:
// a standard input that never ends and never has data.
func openPipe(t *testing.T) *os.File {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r
}

// TestRunStdinOpenAndEmpty: a command that reads an open, empty standard input waits on it,
// with the default --stdin first, until its attempt timeout (exit 124); --stdin none gives
// it nothing to wait on; --stdin replay waits for the end of its input only until --timeout
// (exit 124), and runs nothing.
func TestRunStdinOpenAndEmpty(t *testing.T) {
	run := func(args ...string) result {
		c := exec.Command(retryBin, append([]string{"run", "--quiet"}, args...)...)
		c.Stdin = openPipe(t)
		return runProcess(t, c, "")
	}
	if r := run("--attempts", "1", "--attempt-timeout", "200ms", "--", "sh", "-c", "cat"); r.code != 124 || r.elapsed < 200*time.Millisecond {
		t.Errorf("--stdin first: exit %d after %v; want 124 at the attempt timeout", r.code, r.elapsed)
	}
	if r := run("--stdin", "none", "--", "sh", "-c", "cat"); r.code != 0 || r.elapsed > 5*time.Second {
		t.Errorf("--stdin none: exit %d after %v, stderr %s; want 0 at once", r.code, r.elapsed, r.stderr)
	}
	r := run("--stdin", "replay", "--timeout", "200ms", "--", "sh", "-c", "echo ran")
	want := "retry run: --stdin replay: standard input did not end within --timeout 200ms, and it is read whole before the first attempt; nothing was run\n"
	if r.code != 124 || r.stdout != "" || r.stderr != want || r.elapsed < 200*time.Millisecond {
		t.Errorf("--stdin replay: exit %d after %v, stdout %q, stderr %q; want 124, nothing run, %q", r.code, r.elapsed, r.stdout, r.stderr, want)
	}
}
