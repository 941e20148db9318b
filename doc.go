// Package retry decides, runs and explains retries of failing operations.
//
// The package has three layers (DESIGN "One idea"):
//   - [Decide] is a pure function: given a [Policy], the loop's [State] and the [Outcome] of
//     the attempt that just ended, it returns a [Decision]: retry after a wait, or stop, always
//     with a [Reason]. It reads no clock and never sleeps, so tables of cases test it exactly.
//   - [Do], [DoValue], [DoFallback] and [Run] run an operation under a policy: each attempt
//     with a context bounded by the attempt timeout and the time left, waits that the
//     caller's context interrupts, and deadline checks before and after every wait.
//   - Every decision goes to Policy.OnDecision, Policy.OnDecisionContext (with the loop's
//     context), Policy.Logger (log/slog) and Policy.Metrics when set, as a record with
//     stable field names (see [Record]).
//
// A stop other than success is an [*Error]: errors.Is matches one sentinel per stop reason
// (ErrAttemptsExhausted, ErrRetryAfterExceedsDeadline, ...) and errors.Unwrap reaches the
// last attempt's error, so a policy stop is never confused with the failure under it
// (SPEC R6.3).
//
// The zero Policy is usable and bounded: DefaultMaxAttempts attempts, DefaultTimeout overall,
// DefaultBackoff between attempts (SPEC R2.7). Attempts are counted from 1; the first retry
// is attempt 2. "Deadline" is an instant, "timeout" a duration.
//
// HTTP lives in package retryhttp, backoff strategies in package backoff. This package
// imports the standard library only.
package retry
