// Package breaker is a circuit breaker with the states CLOSED, OPEN and HALF_OPEN.
//
// A [Breaker] in CLOSED runs every call and counts failures. It opens after
// Config.ConsecutiveFailures failures in a row (default 3), or when the failure rate
// over a sliding time window reaches Config.FailureRate with at least Config.MinCalls calls in
// the window. OPEN refuses every call at once for Config.OpenTimeout (default 30 s, optionally
// jittered), then the breaker goes HALF_OPEN and admits Config.HalfOpenCalls trial calls
// (default 1), refusing all others at once. Config.SuccessThreshold trial successes close it;
// one trial failure opens it again. A trial call may run longer than the open time: its
// result counts whenever it comes, as long as the breaker is still in the HALF_OPEN episode
// that admitted it. Only a trial that has not reported within Config.TrialTimeout (default
// 1 min) is presumed lost, and its place goes to a new trial call.
//
// Two ways to use it:
//   - [Breaker.Execute] wraps a call: it runs the call if the breaker admits it and counts its
//     result, or returns an [*OpenError] (errors.Is matches retry.ErrCircuitOpen) saying when
//     the breaker will admit a trial call.
//   - [Breaker.Allow] and [Breaker.Done], the two-step form for transports, which is the
//     retry.CircuitBreaker interface: set Policy.Breaker and the retry loop asks before every
//     attempt and reports after it. A refused loop stops at once with retry.ReasonCircuitOpen,
//     unless its Policy.BreakerWait lets it wait for the trial call; then
//     [Breaker.ReserveTrial] lets HalfOpenCalls loops wait, and the others stop at once.
//
// Which results count as failures follows the retry package's classification (retry.Result):
// a retryable failure or an unknown outcome is a failure; a success or a permanent failure
// (the service answered, the request was wrong) is a success; an attempt that the caller's own
// context ended says nothing about the service and is not counted.
//
// A result is tied to the state it was admitted in: a Done for a token of an earlier state
// (a slow call that returns after the breaker opened, closed or opened again) is ignored, so
// stale results never corrupt the current state.
//
// [Group] keeps one breaker per destination (a key such as scheme+host+port, see [Key]) with
// a bound on how many keys it keeps.
//
// All types are safe for concurrent use. In CLOSED with the consecutive-failure rule alone, a
// success takes no lock, reads no clock and writes no shared memory, so it scales with cores.
// Time is read from the time package (Go's monotonic clock), so tests run it under
// testing/synctest; a breaker or a group may be made outside the bubble and used inside.
// This package imports the standard library and package retry only.
package breaker
