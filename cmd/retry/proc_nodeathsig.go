//go:build unix && !linux

package main

import "syscall"

// setParentDeathSignal does nothing where the kernel has no parent-death signal: there, a
// retry killed outright (SIGKILL) leaves the running attempt behind.
func setParentDeathSignal(*syscall.SysProcAttr) {}
