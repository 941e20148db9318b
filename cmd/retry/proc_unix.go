//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// startInGroup makes c start in a process group of its own, so that signalGroup reaches
// every process it starts, and, where the system has one (setParentDeathSignal), with a
// parent-death signal, so that c does not outlive a retry that is killed outright.
func startInGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(c.SysProcAttr)
}

// signalGroup sends sig to the process group that p leads.
func signalGroup(p *os.Process, sig syscall.Signal) {
	syscall.Kill(-p.Pid, sig) // ESRCH: the group has ended already
}

// exitStatus is the exit status a shell reports for a process: its exit code, or 128+N
// when signal N ended it.
func exitStatus(s *os.ProcessState) int {
	if ws, ok := s.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return s.ExitCode()
}
