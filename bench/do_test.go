package bench

import (
	"context"
	"errors"
	"testing"
	"time"

	avast "github.com/avast/retry-go/v4"
	cenkalti "github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	sethvargo "github.com/sethvargo/go-retry"
)

var (
	errFlaky = errors.New("bench: transient failure")
	sinkErr  error
)

// flaky returns an operation that fails failures times and then succeeds, forever: each
// call of reset starts a new round of failures (one round per benchmark iteration).
type flaky struct{ left, failures int }

func (f *flaky) reset() { f.left = f.failures }
func (f *flaky) call() error { // the operation
	if f.left > 0 {
		f.left--
		return errFlaky
	}
	return nil
}

type doCase struct {
	name string
	do   func() error
}

// doCases returns the same work, "call f until it succeeds, at most 3 attempts, no wait
// between attempts", through each library. Policies and executors are built once, outside
// the measured loop, as an application would.
func doCases(tb testing.TB, f *flaky) []doCase {
	ctx := context.Background()
	zeroWait, err := backoff.New(backoff.Config{Jitter: backoff.NoJitter}) // Base 0: every wait is 0
	if err != nil {
		tb.Fatal(err)
	}
	// ours enforces its default 30 s deadline on every loop, which no peer does; ourBare bounds
	// attempts only, like the peers: the same work. Neither has a retry budget, as no peer
	// has: the default budget would refuse the retries of a loop that fails two attempts in
	// three, which is no longer the same work.
	ours := &retry.Policy{MaxAttempts: 3, Backoff: zeroWait, Budget: retry.NoBudget}
	ourBare := &retry.Policy{MaxAttempts: 3, Backoff: zeroWait, Timeout: retry.NoLimit, Budget: retry.NoBudget}
	fs := failsafe.With[any](retrypolicy.NewBuilder[any]().WithMaxAttempts(3).Build())
	return []doCase{
		{"retry", func() error { return retry.Do(ctx, ours, func(context.Context) error { return f.call() }) }},
		{"retry-no-deadline", func() error { return retry.Do(ctx, ourBare, func(context.Context) error { return f.call() }) }},
		{"cenkalti-backoff-v5", func() error {
			_, err := cenkalti.Retry(ctx, func() (struct{}, error) { return struct{}{}, f.call() },
				cenkalti.WithBackOff(&cenkalti.ZeroBackOff{}), cenkalti.WithMaxTries(3))
			return err
		}},
		{"avast-retry-go-v4", func() error {
			return avast.Do(f.call, avast.Context(ctx), avast.Attempts(3), avast.Delay(0),
				avast.DelayType(avast.FixedDelay), avast.LastErrorOnly(true))
		}},
		{"sethvargo-go-retry", func() error {
			// Its constant backoff refuses 0: 1 ns is the shortest wait it accepts.
			return sethvargo.Do(ctx, sethvargo.WithMaxRetries(2, sethvargo.NewConstant(time.Nanosecond)),
				func(context.Context) error {
					if err := f.call(); err != nil {
						return sethvargo.RetryableError(err)
					}
					return nil
				})
		}},
		{"failsafe-go", func() error { return fs.Run(f.call) }},
	}
}

func doLibraries(b *testing.B, failures int) {
	f := &flaky{failures: failures}
	for _, c := range doCases(b, f) {
		b.Run("lib="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.reset()
				if sinkErr = c.do(); sinkErr != nil {
					b.Fatalf("%s: %v", c.name, sinkErr)
				}
			}
		})
	}
}

// BenchmarkDoImmediateSuccess: the operation succeeds at once.
func BenchmarkDoImmediateSuccess(b *testing.B) { doLibraries(b, 0) }

// BenchmarkDoTwoFailures: the operation fails twice, then succeeds on the third attempt,
// with zero waits (the cost of the loop itself, not of sleeping).
func BenchmarkDoTwoFailures(b *testing.B) { doLibraries(b, 2) }

// TestDoLibrariesWork is the quick smoke test that `go test ./...` runs: every library
// succeeds on the third attempt after two failures, and at once without them.
func TestDoLibrariesWork(t *testing.T) {
	for _, failures := range []int{0, 2} {
		f := &flaky{failures: failures}
		for _, c := range doCases(t, f) {
			f.reset()
			if err := c.do(); err != nil || f.left != 0 {
				t.Errorf("%s with %d failures: %v, %d failures left", c.name, failures, err, f.left)
			}
		}
	}
}
