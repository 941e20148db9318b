package main

import "syscall"

// setParentDeathSignal makes the kernel SIGKILL the attempt when retry dies, even by a
// SIGKILL that no handler sees (prctl PR_SET_PDEATHSIG). The kernel sends it when the
// thread that started the attempt ends, not the process: startAndWait keeps that thread
// locked until the attempt has been waited for, so the signal comes only with retry's own
// death. It reaches the attempt's first process only: what that process started itself
// (a shell's background job) outlives a killed retry unless the process ends it.
func setParentDeathSignal(a *syscall.SysProcAttr) {
	a.Pdeathsig = syscall.SIGKILL
}
