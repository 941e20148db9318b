package breaker

import (
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/window"
)

// The breaker's state word, read and changed atomically:
//
//	bits 63..34 generation: incremented at every change of state
//	bits 33..32 State
//	bits 31..0  consecutive failures counted in CLOSED
//
// A token is the word's upper half (generation and state) in place; in HALF_OPEN its lower
// half numbers the trial call (from 1). A result whose upper half differs from the current
// word's belongs to an earlier state and is ignored.
const (
	stateShift = 32
	genOne     = 1 << 34
	countMask  = 1<<32 - 1
)

func stateOf(w uint64) State  { return State(w >> stateShift & 3) }
func tokenOf(w uint64) uint64 { return w &^ countMask }

// Breaker is a circuit breaker; see the package documentation for its states and
// rules. It implements retry.CircuitBreaker, retry.RetryAfterReceiver,
// retry.AdmissionReporter, retry.TrialReserver and retry.Reporter. Create one with [New]; the zero Breaker behaves
// as one made with the zero Config. A Breaker is safe for concurrent use and must not be
// copied after first use.
type Breaker struct {
	word atomic.Uint64
	cfg  Config
	// policy classifies Execute's errors with cfg.Classifier; nil means the zero Policy.
	policy *retry.Policy

	mu        sync.Mutex
	openUntil time.Time     // OPEN: when a trial call may start
	trials    []trial       // HALF_OPEN: trial calls in flight (not reported, not presumed lost), oldest first
	lastTrial uint32        // HALF_OPEN: the number of the latest trial call admitted
	successes int           // HALF_OPEN: trial successes
	waiting   int           // OPEN: loops given a place to wait for a trial call (ReserveTrial)
	rate      window.Window // CLOSED, with FailureRate: calls and failures in the window
	openings  int           // openings in a row (Config.OpenTime); 0 before the first, and after Reset
	openFor   time.Duration // the open time of the latest opening, before jitter
	closedAt  time.Time     // when the breaker last closed after an opening
}

// trial is a HALF_OPEN trial call in flight: its number (its token's lower half) and when it
// was admitted.
type trial struct {
	n  uint32
	at time.Time
}

// New returns a CLOSED breaker configured by cfg, or an error wrapping ErrInvalidConfig that
// names the field out of range.
func New(cfg Config) (*Breaker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Breaker{cfg: cfg, policy: newPolicy(cfg)}, nil
}

// newPolicy returns the policy whose Classify classifies Execute's errors under cfg.
func newPolicy(cfg Config) *retry.Policy {
	if cfg.Classifier == nil {
		return nil
	}
	return &retry.Policy{Classifier: cfg.Classifier}
}

// State returns the breaker's current state. An OPEN breaker whose open time has passed
// reports OPEN until the next call to Allow (or Execute) turns it HALF_OPEN.
func (b *Breaker) State() State { return stateOf(b.word.Load()) }

// RecordAttrs returns the breaker's field of a decision record: "breaker", its state's name
// ("CLOSED", "OPEN" or "HALF_OPEN"). It makes a Breaker a retry.Reporter, so that every
// decision record of a loop using it shows each state change as it happens. It reads no
// clock and allocates nothing.
func (b *Breaker) RecordAttrs(time.Time) [4]slog.Attr {
	return [4]slog.Attr{slog.String("breaker", b.State().String())}
}

// Allow asks to start a call now (the first step of the two-step form; retry.CircuitBreaker).
// When the breaker admits the call, ok is true: run it, then report its result with Done and
// token, exactly once. When it refuses, retryIn is how long until it will admit a trial call
// (OPEN), or -1 when it cannot say because HALF_OPEN's trial calls are all in flight.
//
// In CLOSED, Allow reads no clock, takes no lock and writes nothing.
func (b *Breaker) Allow() (token uint64, ok bool, retryIn time.Duration) {
	token, _, retryIn = b.allow()
	return token, retryIn == 0, retryIn
}

// allow is Allow that also returns the state that refused a call; retryIn is 0 when the
// call is admitted.
func (b *Breaker) allow() (token uint64, refusedBy State, retryIn time.Duration) {
	if w := b.word.Load(); stateOf(w) == StateClosed {
		return tokenOf(w), StateClosed, 0
	}
	b.mu.Lock()
	now := time.Now()
	w := b.word.Load()
	var ev event
	switch stateOf(w) {
	case StateClosed:
	case StateOpen:
		if now.Before(b.openUntil) {
			retryIn = b.openUntil.Sub(now)
			b.mu.Unlock()
			return 0, StateOpen, retryIn
		}
		w, ev = b.setLocked(w, StateHalfOpen), event{StateOpen, StateHalfOpen, now}
		token = b.admitLocked(w, now)
	case StateHalfOpen:
		b.expireLocked(now)
		if len(b.trials)+b.successes >= b.cfg.halfOpenCalls() {
			b.mu.Unlock()
			return 0, StateHalfOpen, -1
		}
		token = b.admitLocked(w, now)
	}
	b.mu.Unlock()
	b.emit(ev)
	if token == 0 {
		token = tokenOf(w)
	}
	return token, StateClosed, 0
}

// admitLocked admits a trial call in HALF_OPEN (word w) at now and returns its token.
func (b *Breaker) admitLocked(w uint64, now time.Time) uint64 {
	b.lastTrial++
	b.trials = append(b.trials, trial{b.lastTrial, now})
	return tokenOf(w) | uint64(b.lastTrial)
}

// expireLocked presumes lost the trial calls admitted TrialTimeout or longer before now: they
// stop counting as in flight, so their places go to new trial calls. Their results, should
// they come, still count (they belong to this HALF_OPEN episode).
func (b *Breaker) expireLocked(now time.Time) {
	if n := b.lostLocked(now); n > 0 {
		b.trials = append(b.trials[:0], b.trials[n:]...)
	}
}

// lostLocked returns how many of the trial calls in flight are presumed lost at now: those
// admitted TrialTimeout or longer before it, the oldest first in b.trials.
func (b *Breaker) lostLocked(now time.Time) int {
	timeout := b.cfg.trialTimeout()
	n := 0
	for n < len(b.trials) && !now.Before(b.trials[n].at.Add(timeout)) {
		n++
	}
	return n
}

// reportLocked removes trial call number n from those in flight, if it is still there.
func (b *Breaker) reportLocked(n uint32) {
	for i, t := range b.trials {
		if t.n == n {
			b.trials = append(b.trials[:i], b.trials[i+1:]...)
			return
		}
	}
}

// Done reports the result of a call that Allow admitted with token (the second step of the
// two-step form; retry.CircuitBreaker). retry.ResultFailure counts against the service;
// retry.ResultSuccess and retry.ResultThrottled (the service answered, the caller is over
// its rate limit) count for it; retry.ResultIgnored (the caller's own cancellation), and a
// Result this package does not know, not at all. A token from an earlier state of the
// breaker is ignored.
//
// In CLOSED with the consecutive-failure rule alone, a success reads no clock, takes no lock
// and writes nothing unless failures were being counted.
func (b *Breaker) Done(token uint64, r retry.Result) { b.done(token, r, 0) }

// DoneRetryAfter is Done for a call whose answer asked for a wait of retryAfter before the
// next call (a Retry-After; retry.RetryAfterReceiver). When that call's failure opens the
// breaker, the breaker stays OPEN for that wait, within MinOpenTimeout and MaxOpenTimeout,
// rather than OpenTimeout (see [Config.OpenTime]). A retryAfter of 0 or less is no wait.
func (b *Breaker) DoneRetryAfter(token uint64, r retry.Result, retryAfter time.Duration) {
	b.done(token, r, max(0, retryAfter))
}

// counted is the result the breaker counts for r: a throttle is an answer of a service that
// works, a success; a value it does not know says nothing.
func counted(r retry.Result) retry.Result {
	switch r {
	case retry.ResultSuccess, retry.ResultFailure, retry.ResultIgnored:
		return r
	case retry.ResultThrottled:
		return retry.ResultSuccess
	}
	return retry.ResultIgnored
}

// done is Done with the wait the call's answer asked for (0 for none).
func (b *Breaker) done(token uint64, r retry.Result, wait time.Duration) {
	r = counted(r)
	if w := b.word.Load(); tokenOf(w) != tokenOf(token) {
		return // stale: the breaker has changed state since Allow
	} else if b.cfg.FailureRate == 0 && stateOf(w) == StateClosed {
		// The consecutive-failure rule alone: count with atomics, no lock, no clock.
		switch r {
		case retry.ResultIgnored:
			return
		case retry.ResultSuccess:
			for w&countMask != 0 && !b.word.CompareAndSwap(w, w&^countMask) {
				if w = b.word.Load(); tokenOf(w) != tokenOf(token) {
					return
				}
			}
			return
		}
		if b.failFast(token) {
			return
		}
	}
	b.doneSlow(token, r, wait)
}

// failFast counts a CLOSED failure with atomics when it does not reach the threshold. It
// reports false when the slow path must handle the result.
func (b *Breaker) failFast(token uint64) bool {
	threshold := b.cfg.consecutiveFailures()
	for {
		w := b.word.Load()
		switch {
		case tokenOf(w) != tokenOf(token):
			return true // stale
		case stateOf(w) != StateClosed || int(w&countMask)+1 >= threshold:
			return false
		case b.word.CompareAndSwap(w, w+1):
			return true
		}
	}
}

// doneSlow counts a result (counted) under the lock, changing state when a rule says so;
// wait is the wait the call's answer asked for.
func (b *Breaker) doneSlow(token uint64, r retry.Result, wait time.Duration) {
	b.mu.Lock()
	now := time.Now()
	var ev event
	w := b.word.Load()
	switch {
	case tokenOf(w) != tokenOf(token):
	case stateOf(w) == StateClosed:
		ev = b.closedResultLocked(now, r, wait)
	case stateOf(w) == StateHalfOpen:
		// Any result of a trial of this episode counts, even one presumed lost: a slow
		// success is evidence of health all the same.
		b.reportLocked(uint32(token & countMask))
		switch r {
		case retry.ResultFailure:
			b.openLocked(w, now, wait)
			ev = event{StateHalfOpen, StateOpen, now}
		case retry.ResultSuccess:
			if b.successes++; b.successes >= b.cfg.successThreshold() {
				b.setLocked(w, StateClosed)
				b.closedAt = now
				ev = event{StateHalfOpen, StateClosed, now}
			}
		}
	}
	b.mu.Unlock()
	b.emit(ev)
}

// closedResultLocked counts a result (counted) in CLOSED and opens the breaker when a rule
// says so, for the time the rules give a failure that asked for wait. Without a failure-rate
// rule, other goroutines may change the failure count with atomics meanwhile (see Done), so
// the word is changed by compare-and-swap.
func (b *Breaker) closedResultLocked(now time.Time, r retry.Result, wait time.Duration) event {
	if r == retry.ResultIgnored {
		return event{}
	}
	failed := r == retry.ResultFailure
	tripRate := false
	if b.cfg.FailureRate > 0 {
		calls, failures := countRate(&b.rate, now, b.cfg.window(), failed)
		tripRate = failed && calls >= int64(b.cfg.minCalls()) && float64(failures) >= b.cfg.FailureRate*float64(calls)
	}
	threshold := b.cfg.consecutiveFailures()
	for {
		w := b.word.Load()
		next := w &^ countMask
		if failed && w&countMask < countMask {
			next = w + 1
		}
		if tripRate || (failed && threshold > 0 && int(next&countMask) >= threshold) {
			if b.word.CompareAndSwap(w, b.nextWord(w, StateOpen)) {
				if now.Sub(b.closedAt) >= b.openFor {
					b.openings = 0 // it stayed CLOSED as long as it was last OPEN: a new series
				}
				b.openUntilLocked(now, wait)
				return event{StateClosed, StateOpen, now}
			}
			continue
		}
		if b.word.CompareAndSwap(w, next) {
			return event{}
		}
	}
}

// openLocked turns the breaker OPEN from HALF_OPEN: one more opening in a row, for the time
// the rules give a failure that asked for wait.
func (b *Breaker) openLocked(w uint64, now time.Time, wait time.Duration) {
	b.setLocked(w, StateOpen)
	b.openUntilLocked(now, wait)
}

// openUntilLocked counts one more opening in a row at now and sets the time it ends:
// Config.OpenTime for a failure that asked for wait, jittered by OpenJitter.
func (b *Breaker) openUntilLocked(now time.Time, wait time.Duration) {
	b.openings = min(b.openings+1, maxOpenings)
	b.openFor = b.cfg.OpenTime(b.openings, wait)
	d := b.openFor
	if j := b.cfg.OpenJitter; j > 0 {
		extra := float64(d) * j * rand.Float64()
		if extra >= float64(math.MaxInt64-d) {
			d = math.MaxInt64
		} else {
			d += time.Duration(extra)
		}
	}
	b.openUntil = now.Add(d)
}

// maxOpenings bounds the count of openings in a row, beyond which no multiplier lengthens
// the open time: 1000^(2^16) overflows any Duration.
const maxOpenings = 1 << 16

// nextWord is the word of the next generation in state to, with no failures counted.
func (b *Breaker) nextWord(w uint64, to State) uint64 {
	return (w&^(genOne-1) + genOne) | uint64(to)<<stateShift
}

// setLocked moves the breaker from word w (read under the lock, in OPEN or HALF_OPEN, where
// only lock holders change the word) to state to, in a new generation, and resets the
// counts of the state entered. It returns the new word.
func (b *Breaker) setLocked(w uint64, to State) uint64 {
	next := b.nextWord(w, to)
	b.word.Store(next)
	b.trials, b.lastTrial, b.successes, b.waiting = b.trials[:0], 0, 0, 0
	if to == StateClosed {
		b.rate.Reset()
	}
	return next
}

// event is a change of state to report; the zero event reports nothing.
type event struct {
	from, to State
	at       time.Time
}

func (b *Breaker) emit(ev event) {
	if ev.at.IsZero() || b.cfg.OnStateChange == nil {
		return
	}
	b.cfg.OnStateChange(ev.from, ev.to, ev.at)
}

// RetryIn returns how long until Allow would admit a call, without admitting one: 0 when it
// would now (CLOSED, an OPEN breaker whose open time is over, or HALF_OPEN with a free trial
// place), the time left while OPEN, and -1 when HALF_OPEN's trial calls are all in flight.
// It makes a Breaker a retry.AdmissionReporter, so that a retry loop stops at once with
// ReasonCircuitOpen rather than wait for a breaker that will not admit its next attempt in
// time. In CLOSED it reads no clock and takes no lock.
func (b *Breaker) RetryIn() time.Duration {
	if stateOf(b.word.Load()) == StateClosed {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	switch stateOf(b.word.Load()) {
	case StateOpen:
		return max(0, b.openUntil.Sub(now))
	case StateHalfOpen:
		// A trial presumed lost gives its place away at the next Allow.
		if inFlight := len(b.trials) - b.lostLocked(now); inFlight+b.successes >= b.cfg.halfOpenCalls() {
			return -1
		}
	}
	return 0
}

// ReserveTrial gives a retry loop that is about to wait for an OPEN breaker to admit a trial
// call one of HalfOpenCalls places, and reports false once they are taken, so that the
// other loops stop at once (retry.TrialReserver; see retry.Policy.BreakerWait). The places
// are freed when the breaker leaves OPEN, whether or not their loops came back for the trial.
// In another state it reports true: nothing to wait for. In CLOSED it takes no lock.
func (b *Breaker) ReserveTrial() bool {
	if stateOf(b.word.Load()) == StateClosed {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if stateOf(b.word.Load()) != StateOpen {
		return true
	}
	if b.waiting >= b.cfg.halfOpenCalls() {
		return false
	}
	b.waiting++
	return true
}
