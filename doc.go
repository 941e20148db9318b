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
// the first answer that decides is used ("The Tail at Scale", Dean and Barroso, CACM 2013).
// The [Loop] stays clock-free: a hedge is a step it asks its driver for (Step.HedgeAfter,
// Step.Hedge, [Loop.DoneHedge]), under the same deadline, breaker and budget as the
// attempts, each hedge counted as a retry; the command line's simulator drives it on
// virtual time. An attempt and its hedges share an attempt number; MaxAttempts counts
// attempts, so a loop sends at most MaxAttempts × (1 + MaxHedges) requests.
//
// # Nested loops
//
// A loop started inside an attempt of another loop (see [InLoop]) multiplies retries: 3
// layers of 4 attempts make 64 calls at the bottom. Its decisions say so (Decision.Nested),
// and Policy.Nested can make it leave retrying to the outer loop. An inner loop's *Error
// passes on to the outer loop its server's wait (see [RetryAfter]) and its refusals: a stop
// on a permanent failure or an unknown outcome is not retried by the outer loop.
//
// # Retry budgets and circuit breakers
//
// Most programs take the zero Policy, so its retries must not multiply the load on a
// service that is down (3 attempts make 3 times the requests). A Policy without a Budget
// therefore has one: package budget's Quota rule (20 retries, or as many as one loop of the
// policy may make, or a tenth of the attempts of the last second, whichever is most; each
// retry decided takes one, each success gives one back). It lives in
// this package, in a table keyed by a weak pointer to the Policy value (an entry goes when
// the Policy is collected), because a Policy is never written: the loops sharing a *Policy
// share its budget, and a copy of a Policy is a new value with a full budget. Package
// retryhttp keeps one per destination host instead, and retrygrpc one per target, since one
// sick host must not spend the retries of the others. The budget counts a retry when it is
// decided, before the wait, so that retries waiting in backoff cannot overshoot it together;
// it is not told of an attempt that never reached the server (Outcome.NeverReached), which
// put no load on it; and a refusal stops the loop at once, its *Error's RetryAfter keeping
// the backoff's wait, so that a caller that calls again at once does not turn the refusals
// into requests sent back to back.
//
// A circuit breaker's refusal stops the loop at once too: a caller of a service behind an
// OPEN breaker expects to be refused, not to wait for its trial call. Policy.BreakerWait lets
// a loop wait for the trial, and a breaker that is a TrialReserver then lets only as many
// loops wait as it admits trial calls.
//
// HTTP lives in package retryhttp, backoff strategies in package backoff, circuit breakers in
// package breaker and retry budgets in package budget. This package imports the standard
// library only.
package retry
