package retry

import (
	"iter"
	"log/slog"
	"time"
)

// Decision is a retry loop's answer after an attempt: retry after Wait, or stop, always with
// a Reason. Its fields are those every loop has; the code around a loop adds its own (an HTTP
// method and URL, a gRPC code, a circuit breaker's state) as attributes, kept in the
// decision by value (see [Decision.AddAttrs]). [Decision.Fields] lists the whole decision
// record, which [Decision.MarshalJSON] and [Decision.LogValue] write.
type Decision struct {
	// Attempt is the number of the attempt that just ended, 1 for the first.
	Attempt int
	// Status is the attempt's HTTP status, 0 when none.
	Status int
	// Err is the attempt's error, nil when none.
	Err error
	// Elapsed is the time from the loop's start to the end of the attempt.
	Elapsed time.Duration
	// Remaining is the time left before the deadline, never negative; meaningful only when
	// HasDeadline is true.
	Remaining   time.Duration
	HasDeadline bool
	// RetryAfter is the server-requested wait, meaningful only when HasRetryAfter is true;
	// RetryAfterFrom names its source (Outcome.RetryAfterFrom).
	RetryAfter     time.Duration
	HasRetryAfter  bool
	RetryAfterFrom string
	// Wait is how long the loop waits before the next attempt; 0 when it stops.
	Wait time.Duration
	// Retry is true to retry, false to stop.
	Retry bool
	// Reason says why; ReasonSuccess is the only stop that is not a failure.
	Reason Reason
	// Class is the outcome's class under the policy.
	Class Class
	// Nested reports that the loop ran inside another loop's attempt.
	Nested bool
	// NoAttempt reports a stop decided without a new attempt: a wait cut short by the
	// caller, a wake-up too close to the deadline, or a breaker's refusal. Attempt then
	// numbers the last attempt that ran (0 when none did), and the other fields are that
	// attempt's. Count attempts as the decisions without NoAttempt.
	NoAttempt bool
	// Hedge reports that the attempt was a hedge of attempt number Attempt: a copy sent
	// while that attempt was still in flight (see [Hedger]).
	Hedge bool
	// Winner reports, for an attempt of a hedged round (an attempt and its hedges), that
	// its answer is the one the loop used: this decision is the loop's. A round that the
	// caller's context or the deadline ended has no winner (ReasonCanceled,
	// ReasonDeadlineExceeded), nor has a stop decided without an attempt (NoAttempt).
	Winner bool
	// Lost reports an attempt of a hedged round whose answer the loop did not use: it was
	// canceled once another attempt's answer was used, or it failed while another attempt
	// was still in flight. The decision is not the loop's: Retry is false, Reason is
	// empty, and its record has no decision and no reason.
	Lost bool
	// HedgeRefused says why the loop sent no hedge of this attempt although the attempt was
	// slow enough to call for one; 0 when it refused none.
	HedgeRefused HedgeRefusal
	// Throttled reports that the service throttled the attempt (Outcome.Throttled, or an
	// HTTP 429): no circuit breaker counted it as a failure.
	Throttled bool
	// AttemptDuration is how long the attempt that just ended ran, from its start to
	// State.Now; 0 when State.AttemptStart is unset or NoAttempt is true.
	AttemptDuration time.Duration
	// TransportResends counts the exchanges the transport sent again by itself within the
	// attempt (Outcome.TransportResends): the server may have seen Attempt +
	// TransportResends requests for this one attempt.
	TransportResends int
	// GateWait is how long the attempt waited at the destination's rate gate
	// (Policy.RateGate) before it was sent; 0 when it did not wait.
	GateWait time.Duration
	// BreakerRetryIn is, for a ReasonCircuitOpen stop, how long until the circuit breaker
	// admits a trial call (negative when it cannot say: HALF_OPEN with its trial calls in
	// flight); 0 for every other decision. It is not part of the record; the loop's *Error
	// gives it as its RetryAfter.
	BreakerRetryIn time.Duration
	// least is Wait without the spread on a server's wait: the longer of the backoff's and
	// the server's, for a rate gate that paces the retry (see Loop.admitRetry).
	least time.Duration

	// The attributes: the first inlineAttrs in front, any more in more (never shared between
	// copies: see add). The first labels of them name the operation (Operation.Attrs) and
	// come right after attempt in the record.
	front  [inlineAttrs]slog.Attr
	nFront uint8
	labels int
	more   []slog.Attr
	// inHedgedRound: the attempt's round sent a hedge, so the record says winner, true or
	// false.
	inHedgedRound bool
}

// inlineAttrs is how many attributes a Decision holds without allocating: an HTTP loop's
// method and URL and a breaker's state, or a gRPC loop's method, code and breaker, fit.
const inlineAttrs = 4

// AddAttrs adds fields to d's record, after its own fields and those added before. An
// attribute whose key is one of the record's own fields (see [Decision.Fields]) or one
// already added, or whose key is empty, is left out: a record never holds a key twice.
// Up to four attributes cost no allocation. Decisions copied from d keep the attributes d
// had then; adding to one copy never changes another.
func (d *Decision) AddAttrs(attrs ...slog.Attr) {
	for _, a := range attrs {
		if a.Key == "" || ownField(a.Key) || d.hasAttr(a.Key) {
			continue
		}
		d.add(a)
	}
}

// add appends a without checks.
func (d *Decision) add(a slog.Attr) {
	if int(d.nFront) < inlineAttrs {
		d.front[d.nFront] = a
		d.nFront++
		return
	}
	d.more = append(d.more[:len(d.more):len(d.more)], a) // a new array: copies never share one
}

func (d *Decision) hasAttr(key string) bool {
	_, ok := d.Attr(key)
	return ok
}

// NumAttrs returns the number of attributes added to d.
func (d *Decision) NumAttrs() int { return int(d.nFront) + len(d.more) }

// Attrs returns the attributes added to d, in order.
func (d *Decision) Attrs() iter.Seq[slog.Attr] {
	return func(yield func(slog.Attr) bool) {
		for i := range d.NumAttrs() {
			if !yield(d.attr(i)) {
				return
			}
		}
	}
}

// Attr returns the value of the attribute added to d under key.
func (d *Decision) Attr(key string) (slog.Value, bool) {
	for i := range d.NumAttrs() {
		if a := d.attr(i); a.Key == key {
			return a.Value, true
		}
	}
	return slog.Value{}, false
}

// attr returns the i-th attribute added to d.
func (d *Decision) attr(i int) slog.Attr {
	if i < int(d.nFront) {
		return d.front[i]
	}
	return d.more[i-int(d.nFront)]
}

// truncateAttrs keeps d's first n attributes.
func (d *Decision) truncateAttrs(n int) {
	switch {
	case n >= d.NumAttrs():
	case n <= int(d.nFront):
		clear(d.front[n:])
		d.nFront, d.more = uint8(n), nil
	default:
		d.more = d.more[: n-int(d.nFront) : n-int(d.nFront)]
	}
}

// stop makes d a stop for r.
func (d *Decision) stop(r Reason) {
	d.Retry, d.Reason, d.Wait = false, r, 0
}
