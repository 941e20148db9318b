package retry

import (
	"errors"
	"fmt"
	"time"

	"github.com/retrykit/retry/backoff"
)

// Defaults of a [Policy]'s zero fields. They keep every loop bounded in attempts and in time
// unless the caller removes a bound explicitly with [NoLimit].
const (
	// DefaultMaxAttempts is the attempt limit, the first attempt included: two retries, in
	// the 3-5 range suited to interactive clients.
	DefaultMaxAttempts = 3
	// DefaultTimeout bounds a whole loop, attempts and waits together.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxWait is the longest single wait accepted, a server's Retry-After included.
	DefaultMaxWait = 30 * time.Second
)

// DefaultRetryAfterSpread is the spread of a policy whose RetryAfterSpread is zero: a tenth of
// a server-requested wait longer than ShortRetryAfter (see Policy.RetryAfterSpread). A
// Retry-After of 60 s becomes a wait drawn uniformly from [60 s, 66 s), one of an hour from
// [1 h, 1 h 6 min).
const DefaultRetryAfterSpread = 0.1

// ShortRetryAfter is the longest server-requested wait that the spread covers whole, when the
// spread is on: a Retry-After of 1 s, the shortest a server can ask for in whole seconds and
// the one an overloaded server gives every client it turns away at once, becomes a wait drawn
// uniformly from [1 s, 2 s), so that those clients come back over a second rather than in
// one instant.
const ShortRetryAfter = time.Second

// NoLimit, as a limit whose zero value means a default (Policy.MaxAttempts, Timeout,
// MaxWait), removes that limit.
const NoLimit = -1

// None, as a setting whose zero value means a default amount (Policy.RetryAfterSpread,
// package budget's MinRetriesPerSecond), asks for none at all.
const None = -1

// DefaultBackoff is the strategy of a policy whose Backoff is the zero Strategy: exponential
// from 100 ms, capped at 30 s (DefaultMaxWait), with full jitter.
var DefaultBackoff = mustStrategy(backoff.Config{Kind: backoff.Exponential, Base: 100 * time.Millisecond,
	Max: DefaultMaxWait, Jitter: backoff.FullJitter})

// Policy says when to retry, how long to wait and when to stop. The zero Policy is ready to
// use with the defaults above. A Policy is read, never written, by the functions of this
// package, so one Policy may serve any number of goroutines at once, provided its hooks,
// Classifier and Random are themselves safe for concurrent use. Do not change a Policy while
// a loop uses it.
type Policy struct {
	// MaxAttempts is the number of attempts, the first included. Zero means
	// DefaultMaxAttempts (3); NoLimit removes the limit; other negative values are invalid.
	MaxAttempts int
	// Backoff draws the wait before each retry (package backoff). The zero Strategy means
	// DefaultBackoff.
	Backoff backoff.Strategy
	// Timeout bounds the whole loop, attempts and waits together, from its start; the
	// caller's context deadline wins when earlier. Zero means DefaultTimeout (30 s); NoLimit
	// removes it; other negative values are invalid. See the package doc's "Clocks" section.
	Timeout time.Duration
	// AttemptTimeout bounds each attempt: its context's deadline is the earlier of the
	// attempt's start + AttemptTimeout and the loop's deadline. Zero means no bound beyond
	// the loop's deadline; negative is invalid.
	AttemptTimeout time.Duration
	// MinAttemptTime is the least time worth starting an attempt with: a wait that would
	// leave less before the deadline stops the loop now. Zero means any time at all;
	// negative is invalid.
	MinAttemptTime time.Duration
	// MaxWait is the longest single wait: a longer backoff wait is cut to it, and a server
	// asking for longer stops the loop (ReasonRetryAfterExceedsMaxWait). Zero means
	// DefaultMaxWait (30 s); NoLimit removes it; other negative values are invalid.
	MaxWait time.Duration
	// RetryAfterSpread is the most added at random to a server-requested wait, as a ratio
	// of that wait in (0, 1]; a wait of ShortRetryAfter or less gets up to as much again.
	// Zero means DefaultRetryAfterSpread (0.1); None turns it off. See the package doc's
	// "Waits" section.
	RetryAfterSpread float64
	// RetryableStatuses lists the HTTP statuses, 100 to 999, worth retrying; any other
	// status of 400 or more is a permanent failure. Nil means DefaultRetryableStatuses; an
	// empty, non-nil slice retries none. See the package doc's "HTTP statuses" section for
	// unregistered and invalid statuses.
	RetryableStatuses []int
	// Classifier, when set, classifies each outcome whose error carries no mark, before the
	// default rules; returning ClassUnspecified defers to them. It is called once an
	// attempt. See [Policy.Classify].
	Classifier func(Outcome) Class
	// Random supplies the jitter draws. Nil means backoff.GlobalSource; use
	// backoff.NewSource(seed) for a reproducible schedule.
	Random backoff.Source
	// Nested is what a loop does inside an attempt of another loop. The zero value is
	// NestedRetry. See the package doc's "Nested loops" section.
	Nested Nested
	// OnDecision, when set, receives every decision, in order, on the loop's goroutine,
	// with the loop's context (for package retryhttp, the request's), not an attempt's.
	// The loop waits for it. Nil means none. See the package doc's "Observing" section.
	OnDecision Observer
	// Breaker, when set, admits each attempt and is told its result; a refusal stops the
	// loop at once with ReasonCircuitOpen, unless BreakerWait allows a wait. Nil means none;
	// package breaker provides one. See the package doc's "Circuit breakers" section.
	Breaker CircuitBreaker
	// BreakerWait is the longest a loop waits, beyond its backoff, for the Breaker to admit
	// a call it refused. Zero means no wait; NoLimit waits as long as the trial call still
	// fits before the deadline; other negative values are invalid. MaxWait does not bound
	// it. See the package doc's "Circuit breakers" section.
	BreakerWait time.Duration
	// Budget caps the retries of the loops that share it; a refusal stops the loop at once
	// with ReasonRetryBudgetExhausted. Nil means the default budget, one per Policy value
	// (per host in package retryhttp, per target in retrygrpc); NoBudget turns budgets off;
	// package budget provides others. See the package doc's "Retry budgets" section.
	Budget RetryBudget
	// Hedge, when set, sends a copy of an attempt that has had no answer for the Hedger's
	// delay, in loops run by RunConcurrent only; none is sent when less time than the delay
	// is left (exactly the delay is enough). Nil means no hedging; package hedge provides
	// one. See the package doc's "Hedged requests" section.
	Hedge Hedger
	// RateGate, when set, paces the loop's attempts, the first included, to a destination's
	// rate limit: an attempt waits at the gate for its turn when the deadline allows, and
	// otherwise the loop stops at once with ReasonRateLimitExceedsDeadline. Nil means none
	// (package retryhttp gives each destination host a gate of its own, retrygrpc each
	// target); NoRateGate turns those off too. Package ratelimit provides one.
	RateGate RateGate
}

// NoRateGate, as Policy.RateGate, says the loop has no rate gate, and turns off the gates
// that packages retryhttp and retrygrpc give each destination by default. Its Reserve lets
// every attempt go at once.
var NoRateGate RateGate = noRateGate{}

type noRateGate struct{}

func (noRateGate) Reserve(_, notBefore time.Time) (time.Time, uint64) { return notBefore, 0 }
func (noRateGate) Cancel(uint64, time.Time)                           {}
func (noRateGate) Done(uint64, time.Time, Result, time.Duration)      {}

// NoBudget, as Policy.Budget, turns the retry budget off: retries are then bounded by the
// policy's attempts and time alone. Its AllowRetry always allows.
var NoBudget RetryBudget = noBudget{}

type noBudget struct{}

func (noBudget) AllowRetry() bool  { return true }
func (noBudget) Done(bool, Result) {}

// isNoBudget reports whether b is NoBudget, by its type: cheaper than comparing interfaces.
func isNoBudget(b RetryBudget) bool {
	_, no := b.(noBudget)
	return no
}

// Nested is what a retry loop does when its context shows that it runs inside an attempt of
// another retry loop, where retries multiply: 3 layers of 4 attempts make 64 calls at the
// bottom. Every decision of such a loop has Decision.Nested set.
type Nested uint8

const (
	// NestedRetry retries as the policy says, as if alone. It is the zero value.
	NestedRetry Nested = iota
	// NestedSingleAttempt makes one attempt only and leaves retrying to the outer loop: a
	// retryable failure stops at once with ReasonAttemptsExhausted.
	NestedSingleAttempt
)

// ErrInvalidPolicy is matched (errors.Is) by every error of [Policy.Validate].
var ErrInvalidPolicy = errors.New("retry: invalid policy")

// Validate reports the first invalid field of p, naming its value and what is allowed. Do
// and the other loops call it and return its error before any attempt.
func (p *Policy) Validate() error {
	switch {
	case p.MaxAttempts < NoLimit:
		return fmt.Errorf("%w: MaxAttempts %d is invalid: use a positive count, 0 for the default %d, or NoLimit", ErrInvalidPolicy, p.MaxAttempts, DefaultMaxAttempts)
	case p.Timeout < NoLimit:
		return fmt.Errorf("%w: Timeout %v is invalid: use a positive duration, 0 for the default %v, or NoLimit", ErrInvalidPolicy, p.Timeout, DefaultTimeout)
	case p.MaxWait < NoLimit:
		return fmt.Errorf("%w: MaxWait %v is invalid: use a positive duration, 0 for the default %v, or NoLimit", ErrInvalidPolicy, p.MaxWait, DefaultMaxWait)
	case p.AttemptTimeout < 0:
		return fmt.Errorf("%w: AttemptTimeout %v is negative: use a positive duration, or 0 for none", ErrInvalidPolicy, p.AttemptTimeout)
	case p.BreakerWait < NoLimit:
		return fmt.Errorf("%w: BreakerWait %v is invalid: use a positive duration, 0 for none (the default), or NoLimit", ErrInvalidPolicy, p.BreakerWait)
	case p.MinAttemptTime < 0:
		return fmt.Errorf("%w: MinAttemptTime %v is negative: use a positive duration, or 0 for none", ErrInvalidPolicy, p.MinAttemptTime)
	case p.RetryAfterSpread != None && !(p.RetryAfterSpread >= 0 && p.RetryAfterSpread <= 1):
		return fmt.Errorf("%w: RetryAfterSpread %v is invalid: use a ratio in (0, 1], 0 for the default %v, or None", ErrInvalidPolicy, p.RetryAfterSpread, DefaultRetryAfterSpread)
	case p.Nested > NestedSingleAttempt:
		return fmt.Errorf("%w: Nested %d is invalid: use NestedRetry or NestedSingleAttempt", ErrInvalidPolicy, p.Nested)
	}
	for _, s := range p.RetryableStatuses {
		if s < 100 || s > 999 {
			return fmt.Errorf("%w: RetryableStatuses holds %d: an HTTP status is a number from 100 to 999", ErrInvalidPolicy, s)
		}
	}
	return nil
}

func (p *Policy) maxAttempts() int {
	if p.MaxAttempts == 0 {
		return DefaultMaxAttempts
	}
	return p.MaxAttempts
}

func (p *Policy) timeout() time.Duration {
	if p.Timeout == 0 {
		return DefaultTimeout
	}
	return p.Timeout
}

func (p *Policy) maxWait() time.Duration {
	if p.MaxWait == 0 {
		return DefaultMaxWait
	}
	return p.MaxWait
}

// retryAfterSpread is the spread in force: 0 when turned off.
func (p *Policy) retryAfterSpread() float64 {
	switch p.RetryAfterSpread {
	case 0:
		return DefaultRetryAfterSpread
	case None:
		return 0
	}
	return p.RetryAfterSpread
}

func (p *Policy) strategy() backoff.Strategy {
	if !p.Backoff.Valid() {
		return DefaultBackoff
	}
	return p.Backoff
}

func (p *Policy) random() uint64 {
	if p.Random == nil {
		return backoff.GlobalSource.Uint64()
	}
	return p.Random.Uint64()
}

func mustStrategy(c backoff.Config) backoff.Strategy {
	s, err := backoff.New(c)
	if err != nil {
		panic(err) // only for the package's own constant configuration
	}
	return s
}
