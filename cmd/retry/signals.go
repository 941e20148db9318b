package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// signalError is the cause of a context that notifySignals cancelled.
type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string { return e.sig.String() + " received" }

// notifySignals returns a copy of parent cancelled when SIGINT or SIGTERM arrives, with a
// signalError as its cause (see signalStatus). stop stops catching them; call it when done.
func notifySignals(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case s := <-sigs:
			cancel(signalError{s.(syscall.Signal)})
		case <-quit:
		}
	})
	return ctx, func() {
		signal.Stop(sigs)
		close(quit)
		wg.Wait()
		cancel(nil)
	}
}

// signalStatus returns the exit status a shell reports for the signal that cancelled ctx,
// 128+N for signal N, and whether a signal did.
func signalStatus(ctx context.Context) (int, bool) {
	var s signalError
	if errors.As(context.Cause(ctx), &s) {
		return 128 + int(s.sig), true
	}
	return 0, false
}
