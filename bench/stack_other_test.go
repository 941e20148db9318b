//go:build !amd64

package bench

// goroutineStackSize is known on amd64 only (stack_amd64.go); elsewhere it is 0 and
// BenchmarkWaitingLoop reports no stack figure.
func goroutineStackSize() uintptr { return 0 }
