package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/breaker"
)

// Wrap a call: after three failures in a row the breaker refuses calls at once, saying when
// it will admit a trial call.
func ExampleBreaker_Execute() {
	b, err := breaker.New(breaker.Config{ConsecutiveFailures: 3, OpenTimeout: 30 * time.Second})
	if err != nil {
		panic(err)
	}
	down := func(context.Context) error { return errors.New("connection refused") }
	for range 3 {
		fmt.Println(b.Execute(context.Background(), down))
	}
	err = b.Execute(context.Background(), down)
	var open *breaker.OpenError
	fmt.Println(b.State(), errors.Is(err, retry.ErrCircuitOpen), errors.As(err, &open) && open.RetryIn > 29*time.Second)
	// Output:
	// connection refused
	// connection refused
	// connection refused
	// OPEN true true
}

// Share one breaker among retry loops: once it opens, a loop stops at once with
// ReasonCircuitOpen instead of sending more attempts to a service that is down.
func ExampleBreaker_policy() {
	// Defaults: 3 failures in a row open it for 30 s. No backoff waits, for the example. The
	// third failure opens the breaker, which will admit no attempt for 30 s: the loop stops
	// at once, and its error says when a trial call may go.
	b, _ := breaker.New(breaker.Config{})
	zero, _ := backoff.New(backoff.Config{Kind: backoff.Constant, Jitter: backoff.NoJitter})
	p := &retry.Policy{MaxAttempts: 5, Timeout: 10 * time.Second, Backoff: zero, Breaker: b,
		OnDecision: func(_ context.Context, d retry.Decision) { fmt.Println("attempt", d.Attempt, d.Reason) }}
	err := retry.Do(context.Background(), p, func(context.Context) error {
		return errors.New("503 from upstream")
	})
	var stop *retry.Error
	errors.As(err, &stop)
	trial, _ := stop.RetryAfter()
	fmt.Println(errors.Is(err, retry.ErrCircuitOpen), b.State(), trial.Round(time.Second))
	// Output:
	// attempt 1 retryable_error
	// attempt 2 retryable_error
	// attempt 3 circuit_open
	// true OPEN 30s
}

// A service whose upstream's breaker is open answers its own caller at once, with a
// Retry-After saying when the breaker will admit a trial call (retry.Error.RetryAfter).
func ExampleBreaker_retryAfter() {
	b, _ := breaker.New(breaker.Config{ConsecutiveFailures: 1, OpenTimeout: 20 * time.Second})
	p := &retry.Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Breaker: b} // no time to wait 20 s
	callUpstream := func(context.Context) error { return errors.New("503 from upstream") }
	for range 2 {
		err := retry.Do(context.Background(), p, callUpstream)
		var stop *retry.Error
		if errors.As(err, &stop) {
			if wait, ok := stop.RetryAfter(); ok {
				// In an http.Handler: w.Header().Set("Retry-After", seconds); w.WriteHeader(503)
				fmt.Printf("%s after %d attempt(s): 503, Retry-After: %.0f\n", stop.Reason, stop.Attempts, wait.Round(time.Second).Seconds())
			}
		}
	}
	// Output:
	// circuit_open after 1 attempt(s): 503, Retry-After: 20
	// circuit_open after 0 attempt(s): 503, Retry-After: 20
}
