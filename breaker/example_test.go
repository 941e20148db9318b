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

// The open time learns: a server's wait longer than OpenTimeout keeps the breaker OPEN that
// long (here 2 min, asked by a Retry-After), and with OpenTimeoutMultiplier 2 each opening in
// a row lasts twice the one before, up to MaxOpenTimeout.
func ExampleConfig_OpenTime() {
	cfg := breaker.Config{OpenTimeout: 30 * time.Second, OpenTimeoutMultiplier: 2, MaxOpenTimeout: 5 * time.Minute}
	var grown []time.Duration
	for openings := 1; openings <= 5; openings++ {
		grown = append(grown, cfg.OpenTime(openings, 0))
	}
	fmt.Println(grown)
	fmt.Println(cfg.OpenTime(1, 2*time.Minute), cfg.OpenTime(1, 5*time.Second), cfg.OpenTime(1, time.Hour))
	// Output:
	// [30s 1m0s 2m0s 4m0s 5m0s]
	// 2m0s 30s 5m0s
}

// A breaker told the server's wait (retry.RetryAfterReceiver, as a retry loop reports an
// attempt answered with a Retry-After) stays OPEN for it, and a throttle (a 429) is no
// failure: three of them leave the breaker CLOSED.
func ExampleBreaker_DoneRetryAfter() {
	b, _ := breaker.New(breaker.Config{ConsecutiveFailures: 1})
	for range 3 {
		token, _, _ := b.Allow()
		b.DoneRetryAfter(token, retry.ResultThrottled, time.Second) // 429, Retry-After: 1
	}
	fmt.Println(b.State())
	token, _, _ := b.Allow()
	b.DoneRetryAfter(token, retry.ResultFailure, 90*time.Second) // 503, Retry-After: 90
	_, admitted, retryIn := b.Allow()
	fmt.Println(b.State(), admitted, retryIn.Round(time.Second))
	// Output:
	// CLOSED
	// OPEN false 1m30s
}
