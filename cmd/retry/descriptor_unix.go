//go:build unix

package main

import "syscall"

// descriptorOpen reports whether fd is an open file descriptor of the process.
func descriptorOpen(fd int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil
}
