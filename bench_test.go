package retry

import (
	"context"
	"testing"
	"time"

	"github.com/retrykit/retry/backoff"
)

var benchErr error

func noop(context.Context) error { return nil }

// BenchmarkDirectCall is the floor: calling the operation without any retry loop.
func BenchmarkDirectCall(b *testing.B) {
	ctx := context.Background()
	op := noop
	for b.Loop() {
		benchErr = op(ctx)
	}
}

// BenchmarkDoImmediateSuccess measures Do around an operation that succeeds at once, with the
// default policy (a 30 s deadline to enforce, the default budget to count the attempt in),
// without the budget, and with every time limit removed too.
func BenchmarkDoImmediateSuccess(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		p    *Policy
	}{
		{"default", &Policy{}},
		{"no-budget", &Policy{Budget: NoBudget}},
		{"no-time-limits", &Policy{Timeout: NoLimit, Budget: NoBudget}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchErr = Do(ctx, bc.p, noop)
			}
		})
	}
}

// BenchmarkDoFailTwiceZeroDelay measures a loop that fails twice with zero waits and then
// succeeds: three attempts, two decisions to retry, no timer.
func BenchmarkDoFailTwiceZeroDelay(b *testing.B) {
	ctx := context.Background()
	zero, err := backoff.New(backoff.Config{Kind: backoff.Constant, Jitter: backoff.NoJitter})
	if err != nil {
		b.Fatal(err)
	}
	// No budget: the default one would refuse the retries of a loop that fails two attempts
	// in three (BenchmarkDoImmediateSuccess measures its cost).
	for _, bc := range []struct {
		name string
		p    *Policy
	}{
		{"default-timeout", &Policy{Backoff: zero, Budget: NoBudget}},
		{"no-time-limits", &Policy{Backoff: zero, Timeout: NoLimit, Budget: NoBudget}},
		{"with-hook", &Policy{Backoff: zero, Budget: NoBudget, OnDecision: func(context.Context, Decision) {}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				benchErr = Do(ctx, bc.p, func(context.Context) error {
					n++
					if n < 3 {
						return errTransient
					}
					return nil
				})
			}
		})
	}
}

// BenchmarkDecide measures the pure decision for a retryable failure with full jitter.
func BenchmarkDecide(b *testing.B) {
	p := &Policy{}
	s := State{Attempt: 1, Start: t0, Now: t0.Add(time.Second), Deadline: t0.Add(30 * time.Second)}
	o := Outcome{Status: 503}
	b.ReportAllocs()
	var d Decision
	for b.Loop() {
		d = Decide(p, s, o)
	}
	_ = d
}
