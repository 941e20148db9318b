package clock

import (
	"syscall"
	"time"
	"unsafe"
)

// CLOCK_MONOTONIC and CLOCK_BOOTTIME from linux/time.h; the syscall package does not name
// them.
const (
	clockMonotonic = 1
	clockBoottime  = 7
)

// bootClocks reads CLOCK_MONOTONIC, CLOCK_BOOTTIME, then CLOCK_MONOTONIC again; skew is
// the monotonic time between the first and the last read. ok is false when the kernel
// refuses either clock (CLOCK_BOOTTIME needs Linux 2.6.39).
func bootClocks() (monotonic, boot, skew time.Duration, ok bool) {
	monotonic, ok = clockGettime(clockMonotonic)
	if !ok {
		return 0, 0, 0, false
	}
	if boot, ok = clockGettime(clockBoottime); !ok {
		return 0, 0, 0, false
	}
	end, _ := clockGettime(clockMonotonic)
	return monotonic, boot, end - monotonic, true
}

func clockGettime(id uintptr) (time.Duration, bool) {
	var ts syscall.Timespec
	// clock_gettime neither blocks nor fails on a valid id: RawSyscall skips the scheduler.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, id, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
