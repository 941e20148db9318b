package bench

import "unsafe"

// goroutineStackSize returns the size of the calling goroutine's stack, in bytes: the
// runtime's g.stack.hi - g.stack.lo, the first two words of its g (a layout the runtime has
// kept since Go 1.4). It exists for BenchmarkWaitingLoop alone: the runtime reports the
// stacks of all goroutines together (MemStats.StackInuse), with the stacks it has freed into
// its pools among them, but not the stack of one.
func goroutineStackSize() uintptr {
	stack := (*[2]uintptr)(getg())
	return stack[1] - stack[0]
}

// getg returns the running goroutine's g, from thread-local storage (stack_amd64.s).
func getg() unsafe.Pointer
