package bench

import (
	"context"
	"errors"
	"testing"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/sony/gobreaker/v2"
)

var errRefused = errors.New("bench: breaker refused a call in CLOSED")

// breakerCases returns one successful call through a CLOSED breaker of each library, in the
// wrapping form (Execute / Run) and the two-step form (admit, then report) that transports
// use. Every breaker opens after a failure count and is built with its defaults otherwise.
func breakerCases(tb testing.TB) []doCase {
	ctx := context.Background()
	ours, err := breaker.New(breaker.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	ok := func(context.Context) error { return nil }
	gb := gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{Name: "bench"})
	gb2 := gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{Name: "bench"})
	fsb := circuitbreaker.NewWithDefaults[any]()
	fs := failsafe.With[any](fsb)
	return []doCase{
		{"retry-breaker", func() error { return ours.Execute(ctx, ok) }},
		{"retry-breaker-twostep", func() error {
			token, admitted, _ := ours.Allow()
			if !admitted {
				return errRefused
			}
			ours.Done(token, retry.ResultSuccess)
			return nil
		}},
		{"sony-gobreaker-v2", func() error {
			_, err := gb.Execute(func() (struct{}, error) { return struct{}{}, nil })
			return err
		}},
		{"sony-gobreaker-v2-twostep", func() error {
			done, err := gb2.Allow()
			if err != nil {
				return err
			}
			done(nil)
			return nil
		}},
		{"failsafe-go", func() error { return fs.Run(func() error { return nil }) }},
		{"failsafe-go-twostep", func() error {
			if !fsb.TryAcquirePermit() {
				return errRefused
			}
			fsb.RecordSuccess()
			return nil
		}},
	}
}

// BenchmarkBreakerSuccess: a successful call through a CLOSED breaker, one goroutine.
func BenchmarkBreakerSuccess(b *testing.B) { benchCases(b, breakerCases(b), false) }

// BenchmarkBreakerSuccessParallel: the same with GOMAXPROCS goroutines sharing one breaker.
func BenchmarkBreakerSuccessParallel(b *testing.B) { benchCases(b, breakerCases(b), true) }

// TestBreakersWork is the quick smoke test: every breaker admits a successful call.
func TestBreakersWork(t *testing.T) {
	for _, c := range breakerCases(t) {
		if err := c.do(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
