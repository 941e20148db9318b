package retry_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/retrykit/retry/hedge"
)

var errUnavailable = errors.New("service unavailable")

// Do retries a failing operation; each decision can be watched through OnDecision.
func ExampleDo() {
	zero, _ := backoff.New(backoff.Config{Kind: backoff.Constant, Jitter: backoff.NoJitter}) // no waits, for the example
	policy := &retry.Policy{MaxAttempts: 4, Backoff: zero,
		OnDecision: func(_ context.Context, d retry.Decision) { fmt.Println("attempt", d.Attempt, d.Reason) }}
	calls := 0
	err := retry.Do(context.Background(), policy, func(ctx context.Context) error {
		calls++
		if calls < 3 {
			return errUnavailable
		}
		return nil
	})
	fmt.Println("err:", err)
	// Output:
	// attempt 1 retryable_error
	// attempt 2 retryable_error
	// attempt 3 success
	// err: <nil>
}

// A stop is an *Error: branch on its reason with errors.Is and reach the last attempt's error
// through it.
func ExampleError() {
	err := retry.Do(context.Background(), &retry.Policy{MaxAttempts: 1}, func(ctx context.Context) error {
		return errUnavailable
	})
	var stop *retry.Error
	if errors.As(err, &stop) {
		fmt.Println(stop.Reason, stop.Attempts)
	}
	fmt.Println(errors.Is(err, retry.ErrAttemptsExhausted), errors.Is(err, errUnavailable))
	// Output:
	// attempts_exhausted 1
	// true true
}

// Permanent marks an error a retry will not fix.
func ExamplePermanent() {
	calls := 0
	err := retry.Do(context.Background(), nil, func(ctx context.Context) error {
		calls++
		return retry.Permanent(errors.New("invalid API key"))
	})
	fmt.Println(calls, errors.Is(err, retry.ErrNonRetryableError))
	// Output: 1 true
}

// Decide is pure: a worked timeline, stated as two decisions. The deadline is 10 s after the
// start; attempt 2 ends at t = 3 s with 503 and a Retry-After: one of 120 s does not fit in
// the 7 s left, one of 3 s does.
func ExampleDecide() {
	constant, _ := backoff.New(backoff.Config{Kind: backoff.Constant, Base: 3 * time.Second, Jitter: backoff.NoJitter})
	// The spread on top of a Retry-After is off, to show the exact timeline.
	policy := &retry.Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Backoff: constant,
		RetryAfterSpread: retry.None}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	state := retry.State{Attempt: 2, Start: start, Now: start.Add(3 * time.Second), Deadline: start.Add(10 * time.Second)}
	for _, wait := range []time.Duration{120 * time.Second, 3 * time.Second} {
		d := retry.Decide(policy, state, retry.Outcome{Status: 503, RetryAfter: wait, HasRetryAfter: true})
		fmt.Printf("Retry-After %v: retry=%v reason=%s wait=%v remaining=%v\n", wait, d.Retry, d.Reason, d.Wait, d.Remaining)
	}
	// Output:
	// Retry-After 2m0s: retry=false reason=retry_after_exceeds_deadline wait=0s remaining=7s
	// Retry-After 3s: retry=true reason=retry_after wait=3s remaining=7s
}

// Clients told the same Retry-After come back spread over a tenth of the wait, and at least
// a second, by default (Policy.RetryAfterSpread), never earlier than asked; a spread that would
// not fit before the deadline is dropped.
func ExamplePolicy_retryAfterSpread() {
	policy := &retry.Policy{MaxAttempts: 3} // RetryAfterSpread 0: the default, 0.1
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	asked := retry.Outcome{Status: 429, RetryAfter: time.Second, HasRetryAfter: true}
	roomy := retry.State{Attempt: 1, Start: start, Now: start, Deadline: start.Add(10 * time.Second)}
	d := retry.Decide(policy, roomy, asked)
	fmt.Println("10s left:", d.Reason, d.Wait >= time.Second && d.Wait < 2*time.Second)
	tight := retry.State{Attempt: 1, Start: start, Now: start, Deadline: start.Add(time.Second + time.Nanosecond)}
	fmt.Println("1s+1ns left:", retry.Decide(policy, tight, asked).Wait)
	// Output:
	// 10s left: retry_after true
	// 1s+1ns left: 1s
}

// DoFallback turns a final failure into a value.
func ExampleDoFallback() {
	price, err := retry.DoFallback(context.Background(), &retry.Policy{MaxAttempts: 1},
		func(ctx context.Context) (int, error) { return 0, errUnavailable },
		func(ctx context.Context, err error) (int, error) { return 42, nil }) // the cached price
	fmt.Println(price, err)
	// Output: 42 <nil>
}

// Decisions as JSON records, one a line.
func ExampleDecision_MarshalJSON() {
	zero, _ := backoff.New(backoff.Config{Kind: backoff.Constant, Jitter: backoff.NoJitter})
	policy := &retry.Policy{MaxAttempts: 2, Timeout: retry.NoLimit, Backoff: zero,
		OnDecision: func(_ context.Context, d retry.Decision) {
			d.Elapsed = 0 // for a stable example
			line, _ := d.MarshalJSON()
			fmt.Fprintln(os.Stdout, string(line))
		}}
	_ = retry.Do(context.Background(), policy, func(ctx context.Context) error { return errUnavailable })
	// Output:
	// {"attempt":1,"error":"service unavailable","elapsed_ms":0,"wait_ms":0,"decision":"retry","reason":"retryable_error","outcome":"failure"}
	// {"attempt":2,"error":"service unavailable","elapsed_ms":0,"decision":"stop","reason":"attempts_exhausted","outcome":"failure"}
}

// A Loop is the retry loop without a clock: the driver says what time it is and does the
// waiting. Here it runs on virtual time, as the herd simulator does: every attempt fails
// with 503 and takes 100 ms.
func ExampleLoop() {
	constant, _ := backoff.New(backoff.Config{Kind: backoff.Constant, Base: time.Second, Jitter: backoff.NoJitter})
	policy := &retry.Policy{MaxAttempts: 3, Timeout: 10 * time.Second, Backoff: constant}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	loop, err := retry.NewLoop(policy, start, time.Time{}, false)
	if err != nil {
		panic(err)
	}
	for {
		step := loop.Next(now)
		if step.Action == retry.ActionStop {
			fmt.Println("stop:", loop.Decision().Reason) // not reached here: no breaker, no deadline passed
			break
		}
		fmt.Printf("t=%v attempt %d, deadline t=%v\n", now.Sub(start), step.Attempt, step.Deadline.Sub(start))
		now = now.Add(100 * time.Millisecond)
		d := loop.Done(now, retry.Outcome{Status: 503}, nil)
		if !d.Retry {
			fmt.Printf("t=%v stop: %s\n", now.Sub(start), d.Reason)
			break
		}
		now = now.Add(d.Wait)
	}
	// Output:
	// t=0s attempt 1, deadline t=10s
	// t=1.1s attempt 2, deadline t=10s
	// t=2.2s attempt 3, deadline t=10s
	// t=2.3s stop: attempts_exhausted
}

// A lookup that two replicas can answer is safe to send twice at once: RunConcurrent sends a
// hedge when the first attempt has had no answer for 50 ms, and uses the first answer.
func ExampleRunConcurrent() {
	h, _ := hedge.New(hedge.Config{Delay: 50 * time.Millisecond})
	policy := &retry.Policy{Hedge: h, OnDecision: func(_ context.Context, d retry.Decision) {
		fmt.Printf("attempt %d hedge=%v winner=%v lost=%v reason=%q\n", d.Attempt, d.Hedge, d.Winner, d.Lost, d.Reason)
	}}
	lookup := func(ctx context.Context) (string, retry.Outcome) {
		if _, hedge := retry.HedgeOf(ctx); hedge > 0 {
			return "from the hedge", retry.Outcome{}
		}
		<-ctx.Done() // the first replica is stuck; the loop cancels it once the hedge answers
		return "", retry.Outcome{Err: ctx.Err()}
	}
	v, final, err := retry.RunConcurrent(context.Background(), policy, retry.Operation[string]{Attempt: lookup})
	defer final.End()
	fmt.Println(v, err)
	// Output:
	// attempt 1 hedge=false winner=false lost=true reason=""
	// attempt 1 hedge=true winner=true lost=false reason="success"
	// from the hedge <nil>
}
