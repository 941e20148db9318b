package main

import (
	"syscall"
	"testing"
)

// TestRunAttemptDiesWithAKilledRetry: SIGKILL, which retry cannot catch and forward, still
// ends the attempt (its parent-death signal).
func TestRunAttemptDiesWithAKilledRetry(t *testing.T) {
	c, stdout, _ := startBin(t, "run", "--quiet", "--", "sh", "-c", "echo pid $$; exec sleep 30")
	pid := readPID(t, stdout)
	c.Process.Signal(syscall.SIGKILL)
	waitExit(t, c)
	if !waitGone(pid) {
		t.Errorf("the attempt %d survived its killed retry", pid)
	}
}
