// Package retrycheck is a set of go/analysis passes that find unsafe retries: in loops
// written by hand and in the attempt functions given to retry libraries (this project's
// retry.Do, DoValue, DoFallback, and Run, RunIn, RunConcurrent and RunConcurrentIn with a
// retry.Operation; go-retryablehttp; sethgrid/pester; cenkalti/backoff v4 and v5;
// avast/retry-go; failsafe-go; sethvargo/go-retry; Rican7/retry's strategies; gax.Invoke)
// and around SDK clients that retry by themselves (the AWS SDK for Go v2, openai-go,
// anthropic-sdk-go).
//
// A hand-written retry loop is a for statement (or a range over an integer) that makes an
// attempt (a call whose error or *http.Response it keeps), leaves on an answer of that
// attempt, and otherwise waits (time.Sleep, <-time.After, a select on a timer, a helper
// that sleeps) and goes round again after a failure: an error, or an HTTP status. Loops
// that return on every error (polling) and loops that never leave on success (workers, and
// loops whose every exit on the answer gives up: return errors.New, fmt.Errorf, a case of
// a switch on status.Code(err) without codes.OK) are not retry loops, though retrysleep reads the waits of a poll (a loop that leaves on an
// answer that is not a failure) and those a worker makes after a failed call. Facts carry
// across packages which functions retry, which sleep, and what a function does with a
// response handed to it (reads, closes or keeps it).
//
// Each check is an analyzer of its own, named in its diagnostics, so one can be turned off
// with -NAME=false.
//
// # retrynested
//
// A call that retries inside another retry loop's attempt: the attempts multiply, and the
// report says by how much when both counts are constant (4 × 3 = 12 calls). An AWS client
// counts the attempts its package's config.LoadDefaultConfig calls allow; a call started
// by a go statement runs beside the attempt and is not reported, nor is one in the
// statements that end the iteration with a return, nor an openai-go or anthropic-sdk-go
// call, or a call that retries through go-retryablehttp (its default policy's statuses,
// unless a CheckRetry written in the package names the status), in a hand-written loop
// that leaves unless the error's status is a 4xx the inner client does not retry.
//
// # retrywrite
//
// A POST or PATCH sent again after an attempt that may have been applied (a transport
// error once sent, a 500, 502 or 504) without an Idempotency-Key, by a retry loop or by
// go-retryablehttp's own retries (RFC 9110 section 9.2.2). Declined requests (408, 429,
// 503) are safe to send again and not reported.
//
// # retrybody
//
// A response whose body is neither closed nor drained on the path to the next attempt, or
// closed by a defer that runs only when the function returns.
//
// # retryrewind
//
// A request body read to its end by the first attempt and sent again as it is, empty: a
// request built before the loop, or the caller's, sent by every attempt without its Body
// reset from GetBody (req.WithContext and req.Clone share it); a reader made before the
// loop used as the body of each attempt.
//
// # retrysleep
//
// time.Sleep, a bare <-time.After, a select on a timer alone, or a Rican7/retry strategy,
// between attempts while a context (a variable, a request's, or one held in a field of
// the receiver or a parameter, not an unexported field only ever set to TODO() or
// Background()) is in scope. A suggested fix waits on a timer and ctx.Done(). Waits of
// 10 ms or less are never reported; waits under a second are not when the loop checks
// the context elsewhere or its waits add up to a second at most, and waits of a second or
// less are not when the loop leaves when a call given a context fails. Nor is a wait on a
// context of the function's own making (from Background or WithoutCancel, its cancel
// function only deferred; or a function literal's parameter every call gives such a
// context) that no caller can cancel, when only its return ends it, all the waits add up
// to at most half its timeout, or the loop leaves when a call given it fails once its
// timeout passes. Nor is a wait in a function only go statements start whose loop leaves
// first thing once its context is done. A wait capped before it (if d > max { d = max }, time.Until of a
// time.Now().Add(d) brought closer) is bounded by the cap; in test code (a _test.go file
// or a function given a *testing.T, *testing.B or testing.TB) waits adding up to 5 s at
// most are not reported.
//
// # retryunbounded
//
// A retry loop with no attempt bound, no deadline and no context or stop check; a library
// loop configured without a bound (a constant backoff, retry-go's Attempts(0),
// retry.Unlimited with Timeout retry.NoLimit). Not a loop that gives its attempt the
// caller's context and leaves with the attempt's error: that context ends it; nor one in a
// service's Start or OnStart (no context parameter, a type with Stop or OnStop), which
// waits for what the service needs by design.
//
// # retrycancel
//
// context.Canceled or context.DeadlineExceeded classified as retryable, and a 4xx other
// than 408 and 429 retried as if transient: in classifiers (retry-go's RetryIf, failsafe's
// HandleIf and HandleErrors, go-retryablehttp's CheckRetry, retry.Policy's Classifier,
// functions named as retry predicates), in retry loops, and in retry.Policy's
// RetryableStatuses; and a loop that goes round on its context's own error without
// checking that context. A readiness wait is not reported: a request that changes nothing,
// sent by a hand-written probe, or by any loop in test code or in a function that started
// a process, a server or a container before it.
//
// # retryctx
//
// An attempt function of this project's loops (or gax.Invoke) that uses the outer context
// instead of its own parameter, losing the attempt's deadline. A suggested fix names the
// parameter after the outer context, or uses the parameter.
//
// The module's README has an example and its fix for each check, and the precision,
// recall and cost measured.
package retrycheck
