package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// retryBin is the retry binary that TestMain builds once for the tests that run it as a
// subprocess.
var retryBin string

// replicaMain, when set (by the fleet load test, on unix), runs first: in a process the
// test started as a replica, it runs the replica and exits.
var replicaMain func()

func TestMain(m *testing.M) {
	if replicaMain != nil {
		replicaMain()
	}
	dir, err := os.MkdirTemp("", "retry-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	retryBin = filepath.Join(dir, "retry")
	// The processes the tests start keep the fleet's machine file (--fleet) here, not in
	// the user's cache.
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	if out, err := exec.Command("go", "build", "-o", retryBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		// The in-process tests (execute, liveLine) must leave no goroutine behind: not the
		// signal forwarder of run, not a live line, not an idle connection of http.
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// result is what a run of the binary gave.
type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// runBin runs the retry binary with args and stdin, bounded to 20 s.
func runBin(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runProcess(t, exec.Command(retryBin, args...), stdin)
}

// runProcess runs c with stdin (unless c has a Stdin of its own), bounded to 20 s.
func runProcess(t *testing.T, c *exec.Cmd, stdin string) result {
	t.Helper()
	if c.Stdin == nil {
		c.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	c.WaitDelay = time.Second
	start := time.Now()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(20*time.Second, func() { c.Process.Kill() })
	defer timer.Stop()
	c.Wait()
	return result{code: c.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
}

// lines returns stderr's lines.
func (r result) lines() []string {
	return strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
}

// syncBuffer is a bytes.Buffer that a subprocess's copier writes while a test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
