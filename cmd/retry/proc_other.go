//go:build !unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// startInGroup does nothing where process groups are not available: signals and the
// timeout's kill reach the command's own process only.
func startInGroup(*exec.Cmd) {}

// signalGroup kills p for SIGKILL and sends it sig otherwise.
func signalGroup(p *os.Process, sig syscall.Signal) {
	if sig == syscall.SIGKILL {
		p.Kill()
		return
	}
	p.Signal(sig)
}

// exitStatus is the process's exit code.
func exitStatus(s *os.ProcessState) int { return s.ExitCode() }
