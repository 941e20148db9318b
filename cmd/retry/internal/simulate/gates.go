package simulate

import (
	"time"

	"github.com/retrykit/retry"
)

// The packages breaker and budget read the real clock (the time package), which a
// simulation on virtual time cannot move. The two types below follow their rules on the
// simulator's clock instead, and implement the same interfaces (retry.CircuitBreaker,
// retry.RetryBudget), so the loop drives them exactly as it drives the real ones.

// simBreaker is a consecutive-failure circuit breaker on virtual time, with the rules of
// package breaker's defaults (SPEC R5.2): CLOSED opens after threshold failures in a row;
// OPEN refuses every call for openFor, then HALF_OPEN admits one trial call and refuses the
// rest; the trial's success closes it, its failure opens it again. A result is tied to the
// state it was admitted in (a generation number in the token): stale results are ignored.
type simBreaker struct {
	sim       *sim
	threshold int
	openFor   time.Duration

	state      string // "CLOSED", "OPEN" or "HALF_OPEN"
	generation uint64
	failures   int
	openedAt   time.Duration
	trialOut   bool // HALF_OPEN: the trial call is in flight
}

func newSimBreaker(sm *sim, threshold int, openFor time.Duration) *simBreaker {
	return &simBreaker{sim: sm, threshold: threshold, openFor: openFor, state: "CLOSED"}
}

// Allow implements retry.CircuitBreaker.
func (b *simBreaker) Allow() (token uint64, ok bool, retryIn time.Duration) {
	if b.state == "OPEN" {
		if left := b.openedAt + b.openFor - b.sim.now; left > 0 {
			return 0, false, left
		}
		b.set("HALF_OPEN")
	}
	if b.state == "HALF_OPEN" {
		if b.trialOut {
			return 0, false, -1 // a trial is in flight: when it ends is unknown
		}
		b.trialOut = true
	}
	return b.generation, true, 0
}

// Done implements retry.CircuitBreaker.
func (b *simBreaker) Done(token uint64, r retry.Result) {
	if token != b.generation || r == retry.ResultIgnored {
		return
	}
	switch {
	case b.state == "HALF_OPEN" && r == retry.ResultSuccess:
		b.set("CLOSED")
	case b.state == "HALF_OPEN":
		b.set("OPEN")
	case r == retry.ResultSuccess:
		b.failures = 0
	default:
		if b.failures++; b.failures >= b.threshold {
			b.set("OPEN")
		}
	}
}

func (b *simBreaker) set(state string) {
	b.state, b.failures, b.trialOut = state, 0, false
	b.generation++
	if state == "OPEN" {
		b.openedAt = b.sim.now
	}
}

// simBudget is a per-client retry budget on virtual time: a retry is allowed while the
// retries of the last window stay under ratio × the first attempts of that window (the
// Google SRE book's per-client retry budget: "a request will only be retried as long as
// this ratio is below 10%"), counted in one-second slots.
type simBudget struct {
	sim    *sim
	ratio  float64
	slots  []budgetSlot // a ring of one-second slots covering the window
	window int          // seconds
}

type budgetSlot struct {
	second          int64
	firsts, retries int
}

func newSimBudget(sm *sim, ratio float64, window time.Duration) *simBudget {
	n := int(window / time.Second)
	return &simBudget{sim: sm, ratio: ratio, slots: make([]budgetSlot, n), window: n}
}

// slot returns the current second's slot, reset if it holds an older second.
func (b *simBudget) slot() *budgetSlot {
	sec := int64(b.sim.now / time.Second)
	s := &b.slots[sec%int64(b.window)]
	if s.second != sec {
		*s = budgetSlot{second: sec}
	}
	return s
}

func (b *simBudget) totals() (firsts, retries int) {
	now := int64(b.sim.now / time.Second)
	for _, s := range b.slots {
		if now-s.second < int64(b.window) {
			firsts += s.firsts
			retries += s.retries
		}
	}
	return firsts, retries
}

// AllowRetry implements retry.RetryBudget: it spends a retry when one more keeps retries
// within ratio × first attempts over the window.
func (b *simBudget) AllowRetry() bool {
	firsts, retries := b.totals()
	if float64(retries+1) > b.ratio*float64(firsts) {
		return false
	}
	b.slot().retries++
	return true
}

// Done implements retry.RetryBudget: first attempts earn the budget.
func (b *simBudget) Done(retried bool, _ retry.Result) {
	if !retried {
		b.slot().firsts++
	}
}
