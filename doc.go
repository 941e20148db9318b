// Package retry decides, runs and explains retries of failing operations.
//
// The package has three layers:
//   - [Decide] is a pure function: given a [Policy], the loop's [State] and the [Outcome] of
//     the attempt that just ended, it returns a [Decision]: retry after a wait, or stop, always
//     with a [Reason]. It reads no clock and never sleeps, so tables of cases test it exactly.
//   - [Loop] applies a policy step by step without a clock: the herd simulator drives it on
//     virtual time. [Do], [DoValue], [DoFallback] and [Run] drive it with the real clock: each
//     attempt with a context bounded by the attempt timeout and the time left, waits that the
//     caller's context interrupts, and deadline checks before and after every wait.
//   - Every decision goes to Policy.OnDecision, an [Observer], as a record with stable field
//     names (see [Decision.Fields]); [Metrics.Observe] counts them and [LogDecisions] logs
//     them with log/slog.
//
// A stop other than success is an [*Error]: errors.Is matches one sentinel per stop reason
// (ErrAttemptsExhausted, ErrRetryAfterExceedsDeadline, ...) and errors.Unwrap reaches the
// last attempt's error, so a policy stop is never confused with the failure under it.
//
// The zero Policy is usable and bounded: DefaultMaxAttempts attempts, DefaultTimeout overall,
// DefaultBackoff between attempts; a bound is removed only explicitly, with [NoLimit].
// Attempts are counted from 1; the first retry is attempt 2. "Deadline" is an instant,
// "timeout" a duration.
//
// # Waits
//
// A retry waits the backoff's draw (package backoff), cut to MaxWait. A server that asks for
// a wait (Retry-After, RFC 9110 section 10.2.3, or an error made by [After]) only ever
// lengthens it: the loop waits the longer of the two, plus a random spread of the server's
// wait so that clients told the same wait do not come back in step. The loop never retries
// earlier than the server asked, never sleeps into its deadline (a wait that would leave too
// little time stops the loop at once), and a server wait that does not fit stops it with a
// reason that says so. Jitter exists to spread clients out (see "Exponential Backoff And
// Jitter", AWS Architecture Blog, 2015, and the Google SRE book's chapter "Handling
// Overload").
//
// The spread on a server's wait W is drawn uniformly from [0, S): S is W itself when W is
// ShortRetryAfter (1 s) or less, and Policy.RetryAfterSpread × W otherwise, a tenth by
// default. A Retry-After of 1 s, the one an overloaded server gives every client it turns
// away at once, becomes a wait from [1 s, 2 s), so that those clients come back over a
// second rather than in one instant; one of 60 s a wait from [60 s, 66 s). When the wait
// with its spread would pass MaxWait or leave less than MinAttemptTime before the deadline,
// the loop drops the spread and waits the longer of the backoff's wait and W; when that
// does not fit either, it stops. "Enough time" before the deadline is MinAttemptTime, and
// any time at all when that is zero.
//
// # HTTP statuses
//
// Policy.RetryableStatuses decides an HTTP status's class, following RFC 9110 section 15
// beyond the list itself:
//   - a status the IANA HTTP Status Code Registry does not list is treated as the x00 of its
//     class: 520, 522, 524 or 599 are retried when 500 is in the list (as it is in
//     DefaultRetryableStatuses), an unregistered 4xx such as 499 when 400 is;
//   - a status outside 100-599 (0, 600, 999) is an invalid response: a retryable failure,
//     never a success. With package retryhttp, status 0 can come only from a custom
//     RoundTripper that returns a response without one; 600 and 999 from a server that
//     writes such a status line, which net/http delivers as it is;
//   - with the default list, 413 Content Too Large is retried when the response carries
//     Retry-After, which says the condition is temporary (section 15.5.14), and is permanent
//     without it.
//
// Any other status of 400 or more is a permanent failure, and a status below 400 a success
// (see [Policy.Classify]).
//
// # Clocks
//
// Times come from the time package. Deadlines, elapsed times and waits use Go's monotonic
// clock, which wall-clock changes (NTP steps, a user setting the date) do not move. On Linux
// the monotonic clock stops while the machine is suspended, so a wait that spans a suspension
// lasts longer in real time than asked. That is why, around every wait, the loop also reads
// CLOCK_BOOTTIME, which counts suspended time and is never set, and after the wait counts the
// time suspended as gone: a laptop that slept through the deadline stops with
// ReasonDeadlineExceeded instead of starting an attempt nobody is waiting for, while a wall
// clock stepped forward during a wait changes nothing. On other platforms, where the standard
// library offers no boot clock, the wall clock stands in for it: a suspension is caught, but a
// wall-clock step forward during a wait reads as a suspension of the same length.
//
// A Policy's Timeout bounds the loop's duration through these checks and through the
// attempts' context deadlines; it does not interrupt the operation's own code except through
// that context.
//
// # Hedged requests
//
// A slow attempt is no failure, but it may be worth a second copy: with Policy.Hedge set
// ([Hedger]; package hedge gives one whose delay follows a latency percentile), an operation
// run by [RunConcurrent] gets a hedge when an attempt has had no answer for the delay, and
// the first answer that decides is used, the others canceled ("The Tail at Scale", Dean and
// Barroso, CACM 2013). Only RunConcurrent, whose caller declares the attempts safe to run at
// the same time, hedges (package retryhttp runs idempotent and keyed requests so); Do, Run
// and RunIn never do. Each hedge must pass the Hedger's own budget, the Breaker and the
// Budget, which counts it as a retry; none is sent after a server asked for a wait, nor when
// less time than the delay is left before the deadline (with exactly the delay left, the
// hedge is sent). The [Loop] stays clock-free: a hedge is a step it asks its driver for
// (Step.HedgeAfter, Step.Hedge, [Loop.DoneHedge]), under the same deadline, breaker and
// budget as the attempts; the command line's simulator drives it on virtual time. An
// attempt and its hedges share an attempt number; MaxAttempts counts attempts, so a loop
// sends at most MaxAttempts × (1 + MaxHedges) requests.
//
// # Nested loops
//
// A loop started inside an attempt of another loop (see [InLoop]) multiplies retries: 3
// layers of 4 attempts make 64 calls at the bottom. Its decisions say so (Decision.Nested),
// and Policy.Nested can make it leave retrying to the outer loop. An inner loop's *Error
// passes on to the outer loop its server's wait (see [RetryAfter]) and its refusals: a stop
// on a permanent failure or an unknown outcome is not retried by the outer loop.
//
// # Outer loops
//
// An SDK's own retry loop around an HTTP transport of this module is an outer loop the
// transport cannot join: its next attempt is the SDK's. [Operation].OuterAttempt numbers the
// operation as that loop's attempt; the loop then makes that one attempt, decides as after
// that attempt of its own (the policy's attempt limit, backoff, breaker, budget and rate gate
// all apply) and, when it decides to retry, leaves the retry to the outer loop
// ([ErrOuterRetry]), with the wait the server or the rate gate asks for. Package retryhttp
// does so under the SDKs of OpenAI and Anthropic, which tell their attempts apart by a header,
// and tells the SDK the decision in headers it obeys; see its documentation. Every decision
// is then one record, one retry decision an outer attempt and one stop a call.
//
// # Rate gates
//
// A rate limit is a pace to keep, not a failure: Policy.RateGate gives every attempt, the
// first included, a time to send. The loop waits for it when it fits before the deadline
// (and within MaxWait), recording the wait in the next record (gate_wait_ms), and stops at
// once otherwise with ReasonRateLimitExceedsDeadline, its *Error's RetryAfter saying when
// the gate would have let it go, sending nothing. A retry's wait is the longer of its own and
// the gate's time. A hedge goes only when the gate lets it go at once. Every gate hears each
// attempt's result, a throttle (an HTTP 429, gRPC's RESOURCE_EXHAUSTED: Outcome.Throttled)
// as ResultThrottled, which no circuit breaker counts as a failure, with the server's wait.
// Package ratelimit provides a gate that learns a destination's limit from the headers of
// its answers; packages retryhttp and retrygrpc give each destination one by default.
//
// Whatever unwinds a loop's stack (its operation, its classifier or an observer panicking),
// the loop gives back what its gates granted: an attempt in flight is told to them as a
// failure, so that a HALF_OPEN breaker's trial call does not stay taken, and the rate
// gate's time is given back; the panic then goes on up to the caller.
//
// # Retry budgets
//
// Most programs take the zero Policy, so its retries must not multiply the load on a
// service that is down (3 attempts make 3 times the requests). A Policy without a Budget
// therefore has one: package budget's Quota rule with its defaults. It holds 20 retries, or
// as many as one loop of the policy may make (MaxAttempts - 1) when that is more, so that a
// lone loop keeps every retry it allows (no limit with NoLimit attempts), or a tenth of the
// attempts of the last second, when that is more still; each retry decided takes one and
// each successful attempt gives one back, so that it refuses retries only when failures are
// widespread (a third of the operations failing every attempt). It lives in this package,
// in a table keyed by a weak pointer to the Policy value (an entry goes when the Policy is
// collected), because a Policy is never written: the loops of Do, Run and the others
// sharing a *Policy share its budget, a copy of a Policy is a new value with a full budget
// of its own, and the loops given a nil Policy share one. Package retryhttp keeps one per
// destination host instead, and retrygrpc one per target, since one sick host must not
// spend the retries of the others. NoBudget turns budgets off.
//
// Any budget counts a retry when it is decided, before the wait, so that retries waiting in
// backoff cannot overshoot it together; it is not told of an attempt that never reached the
// server (Outcome.NeverReached), which put no load on it; it does not refuse a retry that
// the server paced (a server's wait, the rate gate's, or a throttle): the server works, and
// asks the caller to slow down; and a refusal stops the loop at once, its *Error's
// RetryAfter keeping the wait the refused retry would have made, so that a caller that
// calls again at once does not turn the refusals into requests sent back to back.
//
// # Circuit breakers
//
// Policy.Breaker is asked before every attempt and told every attempt's result. A breaker
// that is an [AdmissionReporter] is also asked after a failed attempt, so that the loop
// stops at once rather than wait first for a breaker that attempt opened (see [Decide]); the
// *Error's RetryAfter says when it admits a trial call. A refusal stops the loop at once
// with ReasonCircuitOpen: a caller of a service behind an OPEN breaker expects to be refused,
// not to wait for its trial call.
//
// Policy.BreakerWait lets a loop wait, beyond its backoff, for the trial: up to that long, or
// with NoLimit as long as it takes, but only while the trial call, once admitted, keeps at
// least MinAttemptTime and a tenth of the time left before the deadline (a trial squeezed
// against the deadline is no trial). MaxWait does not bound this wait, so a server's
// Retry-After is still honoured. A breaker that is a [TrialReserver] (package breaker's is)
// lets only as many loops wait as it admits trial calls; every other loop stops at once.
//
// # Observing
//
// Policy.OnDecision, an [Observer], gets every decision as it is made, on the loop's
// goroutine and with the loop's context (the ctx given to Do, DoValue, DoFallback or Run;
// for package retryhttp the request's), so that a handler can log the request ID or the
// trace it carries. The loop waits for it, so it must not block for long. [Metrics.Observe]
// counts decisions, [LogDecisions] logs them with log/slog, [Observers] calls several
// observers in turn, and package otelretry exports them.
//
// HTTP lives in package retryhttp, backoff strategies in package backoff, circuit breakers in
// package breaker and retry budgets in package budget. This package imports the standard
// library only.
package retry
