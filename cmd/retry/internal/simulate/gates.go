package simulate

import (
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/breaker"
	"github.com/retrykit/retry/internal/window"
)

// The packages breaker and budget read the real clock (the time package), which a
// simulation on virtual time cannot move. The two types below follow their rules on the
// simulator's clock instead, and implement the same interfaces (retry.CircuitBreaker,
// retry.RetryBudget), so the loop drives them exactly as it drives the real ones.

// simBreaker is a consecutive-failure circuit breaker on virtual time, with the rules of
// package breaker's defaults (SPEC R5.2): CLOSED opens after threshold failures in a row;
// OPEN refuses every call for its open time, and lets one loop wait for the trial call
// (ReserveTrial); then HALF_OPEN admits one trial call and refuses the rest; the trial's
// success closes it, its failure opens it again. The open time is package breaker's
// (breaker.Config.OpenTime of a Config with OpenTimeout openFor): openFor, or the longer wait
// the failure that opened it asked for (DoneRetryAfter), within the default bounds. A throttle
// counts as a success, as there (issue 32); a result is tied to the state it was admitted in
// (a generation number in the token): stale results are ignored.
type simBreaker struct {
	sim       *sim
	threshold int
	cfg       breaker.Config // its open time: cfg.OpenTime

	state      string // "CLOSED", "OPEN" or "HALF_OPEN"
	generation uint64
	failures   int
	openedAt   time.Duration
	openFor    time.Duration // the latest opening's open time
	openings   int           // openings in a row, as package breaker counts them
	closedAt   time.Duration // the latest close after an opening
	trialOut   bool          // HALF_OPEN: the trial call is in flight
	waiting    bool          // OPEN: a loop holds the place to wait for the trial call
}

func newSimBreaker(sm *sim, threshold int, openFor time.Duration) *simBreaker {
	return &simBreaker{sim: sm, threshold: threshold, cfg: breaker.Config{OpenTimeout: openFor}, state: "CLOSED"}
}

// Allow implements retry.CircuitBreaker.
func (b *simBreaker) Allow() (token uint64, ok bool, retryIn time.Duration) {
	if b.state == "OPEN" {
		if left := b.openedAt + b.openFor - b.sim.now; left > 0 {
			return 0, false, left
		}
		b.set("HALF_OPEN", 0)
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
func (b *simBreaker) Done(token uint64, r retry.Result) { b.done(token, r, 0) }

// DoneRetryAfter implements retry.RetryAfterReceiver.
func (b *simBreaker) DoneRetryAfter(token uint64, r retry.Result, retryAfter time.Duration) {
	b.done(token, r, max(0, retryAfter))
}

// done counts r, a failure asking for wait, as package breaker does.
func (b *simBreaker) done(token uint64, r retry.Result, wait time.Duration) {
	switch r {
	case retry.ResultThrottled: // the service answers: a success
		r = retry.ResultSuccess
	case retry.ResultSuccess, retry.ResultFailure:
	default: // ignored, or a result unknown here: says nothing
		return
	}
	if token != b.generation {
		return
	}
	switch {
	case b.state == "HALF_OPEN" && r == retry.ResultSuccess:
		b.set("CLOSED", 0)
	case b.state == "HALF_OPEN":
		b.set("OPEN", wait)
	case r == retry.ResultSuccess:
		b.failures = 0
	default:
		if b.failures++; b.failures >= b.threshold {
			b.set("OPEN", wait)
		}
	}
}

// ReserveTrial implements retry.TrialReserver: one loop may wait for the trial call.
func (b *simBreaker) ReserveTrial() bool {
	if b.state != "OPEN" {
		return true
	}
	if b.waiting {
		return false
	}
	b.waiting = true
	return true
}

// set moves the breaker to state; wait is the wait of the failure that opens it.
func (b *simBreaker) set(state string, wait time.Duration) {
	from := b.state
	b.state, b.failures, b.trialOut, b.waiting = state, 0, false, false
	b.generation++
	switch state {
	case "OPEN":
		if from == "CLOSED" && b.sim.now-b.closedAt >= b.openFor {
			b.openings = 0 // it stayed CLOSED as long as it was last OPEN: a new series
		}
		b.openings++
		b.openedAt, b.openFor = b.sim.now, b.cfg.OpenTime(b.openings, wait)
	case "CLOSED":
		b.closedAt = b.sim.now
	}
}

// simBudget is a per-client retry budget on virtual time with the rules of package budget's
// Ratio (the Google SRE book's per-client retry budget, "a request will only be retried as
// long as this ratio is below 10%"): a retry is allowed when, counting it, the retries
// allowed in the last window stay within ratio × the attempts reported in the window (first
// attempts and retries alike) + floor. The window is budget.Ratio's own (internal/window):
// ten buckets from the first event.
type simBudget struct {
	sim          *sim
	ratio, floor float64
	width        time.Duration
	window       window.Window // requests (kind 0) and retries (kind 1), as budget.Ratio
}

// newSimBudget returns a budget allowing retries within ratio of the requests of window,
// plus floor retries per window (budget.RatioConfig.MinRetriesPerSecond × window; 0 is
// retry.None).
func newSimBudget(sm *sim, ratio, floor float64, window time.Duration) *simBudget {
	return &simBudget{sim: sm, ratio: ratio, floor: floor, width: window}
}

// AllowRetry implements retry.RetryBudget.
func (b *simBudget) AllowRetry() bool {
	b.advance()
	if float64(b.window.Total(1)+1) > b.ratio*float64(b.window.Total(0))+b.floor {
		return false
	}
	b.window.Add(1)
	return true
}

// Done implements retry.RetryBudget: every attempt counts as a request.
func (b *simBudget) Done(bool, retry.Result) {
	b.advance()
	b.window.Add(0)
}

// advance slides the window to now, dropping the buckets that left it.
func (b *simBudget) advance() {
	now := b.sim.clock()
	b.window.Start(now)
	b.window.Advance(now.Sub(b.window.Epoch()), b.width)
}
