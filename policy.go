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
	// MaxAttempts is the total number of attempts, the first included. Zero means
	// DefaultMaxAttempts; NoLimit removes the limit; other negative values are invalid.
	MaxAttempts int
	// Backoff computes the wait before each retry (package backoff). The zero Strategy means
	// DefaultBackoff.
	Backoff backoff.Strategy
	// Timeout bounds the whole loop, attempts and waits together, from the moment it starts.
	// The loop's deadline is the earlier of start + Timeout and the caller's context
	// deadline. Zero means DefaultTimeout; NoLimit removes it (the context deadline still
	// applies); other negative values are invalid.
	Timeout time.Duration
	// AttemptTimeout bounds one attempt: each attempt's context has the deadline
	// min(attempt start + AttemptTimeout, loop deadline). Zero means no per-attempt bound
	// beyond the loop deadline; negative is invalid.
	AttemptTimeout time.Duration
	// MinAttemptTime is the least time worth starting an attempt with: a wait that would
	// leave less before the deadline stops the loop now. Zero means any time at all;
	// negative is invalid.
	MinAttemptTime time.Duration
	// MaxWait is the longest single wait accepted. A server asking for longer stops the loop
	// with ReasonRetryAfterExceedsMaxWait; a longer backoff wait is shortened to MaxWait.
	// Zero means DefaultMaxWait; NoLimit removes it; other negative values are invalid.
	MaxWait time.Duration
	// RetryAfterSpread bounds the extra wait added at random on top of a server-requested
	// wait (Retry-After), as a share of that wait, so that clients told the same wait at the
	// same moment do not come back in step. The extra is drawn uniformly from [0, S), where
	// S is the wait itself when it is ShortRetryAfter (1 s) or less, and RetryAfterSpread ×
	// the wait otherwise: by default a tenth. The loop waits the longer of the backoff's wait
	// and the server's wait plus the extra; when that would pass MaxWait or leave less than
	// MinAttemptTime before the deadline, it drops the extra and waits the longer of the
	// backoff's wait and the server's. It never waits less than the server asked. Zero means
	// DefaultRetryAfterSpread (0.1); None turns the spread off; otherwise it is a ratio in
	// (0, 1].
	RetryAfterSpread float64
	// RetryableStatuses lists the HTTP statuses worth retrying. Nil means
	// DefaultRetryableStatuses; an empty, non-nil slice retries no status. Any other status
	// of 400 or more is a permanent failure; below 400, a success. Beyond the list itself,
	// following RFC 9110 section 15:
	//   - a status the IANA HTTP Status Code Registry does not list is treated as the x00
	//     of its class: 520, 522, 524 or 599 are retried when 500 is in the list (as it is
	//     in the default list), an unregistered 4xx such as 499 when 400 is;
	//   - a status outside 100-599 (0, 600, 999) is an invalid response: a retryable
	//     failure, never a success. With package retryhttp, status 0 can come only from a
	//     custom RoundTripper that returns a response without one; 600 and 999 from a server
	//     that writes such a status line, which net/http delivers as it is;
	//   - with the default list, 413 Content Too Large is retried when the response carries
	//     Retry-After, which says the condition is temporary (section 15.5.14), and is
	//     permanent without it.
	RetryableStatuses []int
	// Classifier, when set, classifies each outcome whose error carries no mark, before the
	// default rules; returning ClassUnspecified defers to them. It is called once an attempt.
	// See [Policy.Classify].
	Classifier func(Outcome) Class
	// Random supplies the jitter draws; nil means backoff.GlobalSource. Use
	// backoff.NewSource(seed) for a reproducible schedule.
	Random backoff.Source
	// Nested says what a loop does when it runs inside an attempt of another loop of this
	// package; the zero value is NestedRetry.
	Nested Nested
	// OnDecision, when set, receives every decision, in order, on the loop's goroutine, with
	// the loop's context (the ctx given to Do, DoValue, DoFallback or Run; for package
	// retryhttp the request's), not an attempt's. It must not block for long: the loop waits
	// for it. [Metrics.Observe] counts decisions, [LogDecisions] logs them with log/slog,
	// [Observers] calls several observers in turn, and package otelretry exports them.
	OnDecision Observer
	// Breaker, when set, is asked before every attempt, and told every attempt's result.
	// When it refuses, the loop stops at once with ReasonCircuitOpen, unless BreakerWait
	// lets it wait for the breaker to admit a trial call. A breaker that is an
	// [AdmissionReporter] is also asked after a failed attempt, so that the loop stops at
	// once rather than wait first for a breaker that attempt opened (see [Decide]); the
	// *Error's RetryAfter says when it admits a trial call. Package breaker provides one.
	Breaker CircuitBreaker
	// BreakerWait is the longest a loop waits, beyond its own backoff, for the Breaker to
	// admit a call it refuses. Zero, the default, never waits: a refusal stops the loop at
	// once with ReasonCircuitOpen, and the *Error's RetryAfter says when the breaker admits
	// a trial call. A positive duration waits up to that long, and NoLimit as long as it
	// takes; either way only while the trial call, once admitted, keeps at least
	// MinAttemptTime and a tenth of the time left before the deadline. A breaker that is a
	// [TrialReserver] (package breaker's is) lets only as many loops wait as it admits trial
	// calls; every other loop stops at once. MaxWait does not bound this wait. Other
	// negative values are invalid.
	BreakerWait time.Duration
	// Budget caps the retries of the loops that share it; a refusal stops the loop at once
	// with ReasonRetryBudgetExhausted, before any wait, and the *Error's RetryAfter is the
	// wait the refused retry would have made. Nil means the default budget, package
	// budget's Quota rule with its defaults: it holds 20 retries, or as many as one loop of
	// the policy may make (MaxAttempts - 1) when that is more, so that a lone loop keeps
	// every retry it allows (no limit with NoLimit attempts), or a tenth of the attempts of
	// the last second, when that is more still; each retry decided takes one and
	// each successful attempt gives one back, so that it refuses retries only when
	// failures are widespread (a third of the operations failing every attempt), and an
	// attempt that never reached the server (Outcome.NeverReached) costs nothing. The
	// loops of Do, Run and the others share the default budget of their *Policy: one per
	// Policy value, so that calls sharing a Policy share a budget, and a copy of a Policy
	// is a new value with a full budget of its own (the loops given a nil Policy share
	// one). Package retryhttp gives each destination host, and package retrygrpc each
	// target, a default budget instead. NoBudget turns budgets off; package budget
	// provides others.
	Budget RetryBudget
	// Hedge, when set, sends hedged attempts: when an attempt has had no answer for the
	// Hedger's delay, the loop sends a copy of it and uses whichever answer comes first,
	// canceling the other. Only an operation run with RunConcurrent, which declares its
	// attempts safe to run at the same time, is hedged (package retryhttp runs idempotent and
	// keyed requests so); Do, Run and RunIn never hedge. Each hedge must pass the Hedger's own budget, the Breaker and the Budget,
	// which counts it as a retry; none is sent after a server asked for a wait, nor when
	// the deadline leaves less than the delay (with exactly the delay left, one is sent).
	// Package hedge provides one.
	Hedge Hedger
	// RateGate, when set, paces the loop's attempts, the first included, to a destination's
	// rate limit: an attempt waits at the gate for its turn when the deadline allows, and
	// otherwise the loop stops at once with ReasonRateLimitExceedsDeadline. Nil means none;
	// package retryhttp gives each destination host a gate of its own. Package ratelimit
	// provides one.
	RateGate RateGate
}

// NoBudget, as Policy.Budget, turns the retry budget off: retries are then bounded by the
// policy's attempts and time alone. Its AllowRetry always allows.
var NoBudget RetryBudget = noBudget{}

type noBudget struct{}

func (noBudget) AllowRetry() bool  { return true }
func (noBudget) Done(bool, Result) {}

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
