// Package quota is the rule of the default retry budget: a quota of retries that every
// retry decided spends and every successful attempt refills, holding Retries, or a tenth of
// the attempts of the last second when that is more. Package retry keeps one for each
// Policy value whose Budget is nil, and package budget exports it as budget.Quota (the
// per-destination default of retryhttp and retrygrpc). It reads no clock: its callers say
// what time it is (the retry loop's clock, which the simulator drives on virtual time).
package quota

import (
	"math"
	"sync"
	"time"

	"github.com/retrykit/retry/internal/window"
)

// Defaults of a quota's settings.
const (
	// DefaultRetries is how many retries a quota holds at its start, and at least: the
	// retries of ten calls of the default policy.
	DefaultRetries = 20
	// DefaultRefill is the share of a retry each successful attempt gives back: the quota
	// keeps up while retries stay within the successes, so it refuses only when failures
	// are widespread (a third of the operations failing every attempt, or half of all
	// attempts failing at random).
	DefaultRefill = 1.0
)

// BurstShare is the share of the last second's attempts a quota may hold beyond Retries, so
// that a client with many calls in flight keeps its retries when a tenth of them fail at
// once: the Google SRE book's 10% per-client retry ratio, as a burst allowance.
const BurstShare = 0.1

// burstWindow is how far back attempts count for the burst allowance.
const burstWindow = time.Second

// RetriesFor is the Retries of a default quota for loops that may each make maxAttempts
// attempts (retry.NoLimit, -1, for any number): DefaultRetries, or as many retries as one
// such loop may make when that is more, so that a quota never refuses a lone loop the
// retries its policy allows; MaxRetries for loops without an attempt limit.
func RetriesFor(maxAttempts int) int {
	if maxAttempts < 0 || maxAttempts-1 > MaxRetries {
		return MaxRetries
	}
	return max(DefaultRetries, maxAttempts-1)
}

// Limits of the settings.
const (
	MaxRetries = 1 << 20
	MinRefill  = 0.001
	MaxRefill  = float64(MaxRetries)
)

// Valid reports whether retries and refill are settings a Quota accepts: retries from 1 to
// MaxRetries, refill from MinRefill to MaxRefill (counted in thousandths).
func Valid(retries int, refill float64) bool {
	return retries >= 1 && retries <= MaxRetries && refill >= MinRefill && refill <= MaxRefill
}

// Quota is a quota of retries, counted in thousandths of a retry. The zero Quota is not
// usable: call Init first. Safe for concurrent use once initialised; it allocates nothing.
type Quota struct {
	floor  int64 // Retries × 1000
	refill int64 // thousandths given back per success

	mu     sync.Mutex
	milli  int64         // retries left × 1000
	window window.Window // attempts (kind 0) of the last burstWindow
}

// Init sets q up full with retries retries and a refill of refill per success, both valid
// (see Valid). It must be called once, before any other method.
func (q *Quota) Init(retries int, refill float64) {
	q.floor = int64(retries) * 1000
	q.refill = int64(math.Floor(refill*1000 + 1e-6))
	q.milli = q.floor
}

// Take spends one retry at now and reports true, or reports false, spending nothing, when
// less than one is left.
func (q *Quota) Take(now time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.advance(now)
	q.milli = min(q.milli, q.capacity())
	if q.milli < 1000 {
		return false
	}
	q.milli -= 1000
	return true
}

// Done counts an attempt that ended at now and, when it succeeded, gives back the refill,
// never beyond the capacity. Callers pass success false for a throttled attempt (an HTTP 429,
// retry.ResultThrottled): it counts as an attempt and gives nothing back, as a failure.
func (q *Quota) Done(now time.Time, success bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.advance(now)
	q.window.Add(0)
	if success {
		q.milli = min(q.milli+q.refill, max(q.milli, q.capacity()))
	}
}

// Retries returns the retries left at now.
func (q *Quota) Retries(now time.Time) float64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.advance(now)
	return float64(min(q.milli, q.capacity())) / 1000
}

// capacity is the most q holds now, in thousandths: Retries, or BurstShare of the attempts
// of the last second when that is more.
func (q *Quota) capacity() int64 {
	return max(q.floor, q.window.Total(0)*int64(BurstShare*1000))
}

// advance slides the window to now. A window whose epoch lies after now was started on
// another clock (a quota made outside a testing/synctest bubble and used inside): it
// starts again, empty, at now.
func (q *Quota) advance(now time.Time) {
	q.window.Start(now)
	elapsed := now.Sub(q.window.Epoch())
	if elapsed < 0 {
		q.window.Reset()
		q.window.Start(now)
		elapsed = 0
	}
	q.window.Advance(elapsed, burstWindow)
}
