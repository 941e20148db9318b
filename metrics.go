package retry

import (
	"context"
	"math"
	"sync/atomic"
	"time"
)

// StopReasons lists every stop reason, in a fixed order: the order of
// MetricsSnapshot.Stops and of the command line's tables. Treat it as read-only.
var StopReasons = []Reason{ReasonSuccess, ReasonNonRetryableStatus, ReasonNonRetryableError,
	ReasonAttemptsExhausted, ReasonDeadlineExceeded, ReasonWaitExceedsDeadline,
	ReasonRetryAfterExceedsDeadline, ReasonRetryAfterExceedsMaxWait, ReasonCanceled,
	ReasonCircuitOpen, ReasonRetryBudgetExhausted, ReasonUnknownOutcome, ReasonRateLimitExceedsDeadline}

// WaitBuckets are the upper bounds (inclusive) of the wait histogram's buckets; a last,
// unbounded bucket follows them. Treat it as read-only.
var WaitBuckets = []time.Duration{0, 10 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second,
	2500 * time.Millisecond, 5 * time.Second, 10 * time.Second, 30 * time.Second}

// Metrics counts what retry loops do: attempts, attempts the service throttled, retries, the
// exchanges a transport re-sent by itself within an attempt, successes after a retry, stops
// by reason, a histogram of waits, and hedges sent, won and refused. Its Observe method is an [Observer]: set Policy.OnDecision to m.Observe (or combine
// it with others through [Observers]). One Metrics may serve many policies and goroutines.
// Counting is a few atomic adds a decision and never allocates. The zero Metrics is ready to
// use.
type Metrics struct {
	attempts            atomic.Uint64
	throttled           atomic.Uint64
	retries             atomic.Uint64
	transportResends    atomic.Uint64
	successesAfterRetry atomic.Uint64
	stops               [13]atomic.Uint64 // indexed like StopReasons
	waits               [12]atomic.Uint64 // indexed like WaitBuckets, then the overflow bucket
	waitTotal           atomic.Int64      // nanoseconds
	hedges, hedgesWon   atomic.Uint64
	hedgesRefused       [6]atomic.Uint64 // indexed like HedgeRefusals
}

// MetricsSnapshot is a copy of a [Metrics] at one moment; fields are read one by one, so a
// snapshot taken while loops run may be off by the decisions made while it was taken.
type MetricsSnapshot struct {
	// Attempts counts attempts that ran; Retries, the decisions to retry.
	Attempts, Retries uint64
	// Throttled counts the attempts that Attempts counts and that the service throttled
	// (Decision.Throttled: an HTTP 429, gRPC's RESOURCE_EXHAUSTED): the caller was over its
	// rate limit, the service worked.
	Throttled uint64
	// TransportResends counts the exchanges that transports sent again by themselves within
	// attempts (Decision.TransportResends): retries nobody asked for, which the server may
	// have seen as much as the attempts. Attempts + TransportResends is the number of
	// requests sent.
	TransportResends uint64
	// SuccessesAfterRetry counts loops that succeeded on attempt 2 or later.
	SuccessesAfterRetry uint64
	// Stops counts loop ends by reason, success included.
	Stops map[Reason]uint64
	// WaitCounts[i] counts waits of at most WaitBuckets[i] (and more than the bucket
	// before); its last element counts the waits above every bound.
	WaitCounts []uint64
	// WaitTotal is the sum of all waits, saturating at about 292 years.
	WaitTotal time.Duration
	// Hedges counts the hedges sent (Decision.Hedge), which Attempts counts too;
	// HedgesWon, those whose success was the answer the loop used.
	Hedges, HedgesWon uint64
	// HedgesRefused counts, by refusal, the hedges that an attempt's slowness called for
	// and the loop did not send (Decision.HedgeRefused).
	HedgesRefused map[HedgeRefusal]uint64
}

// Snapshot returns the current counts. It is safe to call while loops run.
func (m *Metrics) Snapshot() MetricsSnapshot {
	s := MetricsSnapshot{Attempts: m.attempts.Load(), Throttled: m.throttled.Load(), Retries: m.retries.Load(),
		TransportResends:    m.transportResends.Load(),
		SuccessesAfterRetry: m.successesAfterRetry.Load(), Stops: make(map[Reason]uint64),
		WaitCounts: make([]uint64, len(WaitBuckets)+1), WaitTotal: time.Duration(m.waitTotal.Load()),
		Hedges: m.hedges.Load(), HedgesWon: m.hedgesWon.Load(), HedgesRefused: make(map[HedgeRefusal]uint64)}
	for i, r := range HedgeRefusals {
		if n := m.hedgesRefused[i].Load(); n > 0 {
			s.HedgesRefused[r] = n
		}
	}
	for i, r := range StopReasons {
		if n := m.stops[i].Load(); n > 0 {
			s.Stops[r] = n
		}
	}
	for i := range s.WaitCounts {
		s.WaitCounts[i] = m.waits[i].Load()
	}
	return s
}

// Observe counts d. It is safe for concurrent use.
func (m *Metrics) Observe(_ context.Context, d Decision) {
	if !d.NoAttempt { // a stop without an attempt repeats the last attempt's fields
		m.attempts.Add(1)
		if d.Throttled {
			m.throttled.Add(1)
		}
		if d.TransportResends > 0 {
			m.transportResends.Add(uint64(d.TransportResends))
		}
		m.countHedging(&d)
	}
	if d.Lost { // an attempt whose answer the loop did not use: no decision of the loop's
		return
	}
	if d.Retry {
		m.retries.Add(1)
		i := 0
		for i < len(WaitBuckets) && d.Wait > WaitBuckets[i] {
			i++
		}
		m.waits[i].Add(1)
		for { // saturate rather than overflow
			total := m.waitTotal.Load()
			next := total + int64(d.Wait)
			if next < total {
				next = math.MaxInt64
			}
			if m.waitTotal.CompareAndSwap(total, next) {
				break
			}
		}
		return
	}
	if d.Reason == ReasonSuccess && d.Attempt > 1 {
		m.successesAfterRetry.Add(1)
	}
	for i, r := range StopReasons {
		if r == d.Reason {
			m.stops[i].Add(1)
			return
		}
	}
}

// countHedging counts the hedge d's attempt was, and a hedge its attempt was refused.
func (m *Metrics) countHedging(d *Decision) {
	if d.Hedge {
		m.hedges.Add(1)
		if d.Winner && d.Reason == ReasonSuccess {
			m.hedgesWon.Add(1)
		}
	}
	if d.HedgeRefused != 0 {
		for i, r := range HedgeRefusals {
			if r == d.HedgeRefused {
				m.hedgesRefused[i].Add(1)
			}
		}
	}
}
