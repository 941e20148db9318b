// Package breaker is a circuit breaker with the states CLOSED, OPEN and HALF_OPEN.
//
// A [Breaker] in CLOSED runs every call and counts failures. It opens after
// Config.ConsecutiveFailures failures in a row (default 3), or when the failure rate
// over a sliding time window reaches Config.FailureRate with at least Config.MinCalls calls in
// the window. OPEN refuses every call at once for Config.OpenTimeout (default 30 s, optionally
// jittered; longer when the failure that opened it asked for a longer wait, or when it opens
// again and again with Config.OpenTimeoutMultiplier set: see "Open time"), then the breaker
// goes HALF_OPEN and admits Config.HalfOpenCalls trial calls
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
// # Throttles
//
// A throttle (retry.ResultThrottled: an HTTP 429 Too Many Requests, RFC 6585 section 4, or
// gRPC's RESOURCE_EXHAUSTED) says that the service works and that the caller is over its
// rate limit, so the breaker counts it as a success: it never opens the breaker, it ends a
// run of failures, and it counts as a call that did not fail in the failure-rate window. A
// breaker is for a service that does not answer; the pace a limit asks for is the rate
// gate's and the Retry-After's to keep, and a breaker that opened on 429s would refuse every
// call for its open time although the limit resets within seconds. An overload refusal (503
// Service Unavailable, Anthropic's 529) is a failure.
//
// A throttled trial call in HALF_OPEN counts as a trial success too, and closes the breaker
// once SuccessThreshold trials have succeeded. HALF_OPEN asks whether the service answers,
// and a throttle is an answer; keeping the breaker HALF_OPEN instead would refuse every other
// caller of a service that works, and treating it as a failure would reopen the breaker for
// a whole open time on a limit that resets within seconds. The calls that follow meet the
// limit's own pace: each attempt waits what the 429 asked (retry.Policy, and its RateGate).
//
// A Result value this package does not know counts as an ignored one.
//
// # Open time
//
// The time a breaker stays OPEN learns from two things (see [Config.OpenTime]):
//   - The wait the failure that opened it asked for: a loop reports an attempt whose answer
//     carried a Retry-After through [Breaker.DoneRetryAfter] (retry.RetryAfterReceiver), and
//     [Breaker.Execute] reads the wait an error carries (retry.RetryAfter). The breaker stays
//     OPEN for that wait rather than OpenTimeout, within MinOpenTimeout and MaxOpenTimeout
//     (default 5 min). MinOpenTimeout defaults to OpenTimeout, so by default a server's wait
//     lengthens the open time (a "back in 2 minutes" is not probed every 30 s) and never
//     shortens it: many servers send a short Retry-After on every 503 of an outage, and
//     following a 1 s wait would send a trial call a second where the fixed 30 s sends one
//     every 30 s. Set MinOpenTimeout lower to follow shorter waits too.
//   - How often it has opened in a row: the n-th consecutive opening lasts
//     base × OpenTimeoutMultiplier^(n-1), at most MaxOpenTimeout, base being OpenTimeout or
//     the server's wait. This is resilience4j's wait interval in the OPEN state,
//     IntervalFunction.ofExponentialBackoff(initial, multiplier, max), applied to the number
//     of openings since the breaker was last CLOSED (CircuitBreakerStateMachine), and, with
//     a growth by multiplication rather than addition, Envoy's outlier ejection, whose
//     ejection time is base_ejection_time × the number of ejections in a row, capped by
//     max_ejection_time (default 300 s, the default of MaxOpenTimeout). An opening counts as
//     one more in a row when a trial call failed, or when the breaker had stayed CLOSED less
//     long than its last open time; once it has stayed CLOSED that long (30 s with the
//     defaults) the count starts again. Envoy lowers its multiplier by one for each healthy
//     interval (10 s) instead; resilience4j starts again at every close.
//
// OpenTimeoutMultiplier defaults to 1, no growth, as resilience4j's default
// (IntervalFunction.of(60 s)). Growth makes a long outage cost fewer trial calls and every
// outage longer refusals after the service recovers. Measured with a client that calls every
// 100 ms, averaged over outages ending at any second of a 30 s span: after a 31 s outage
// the defaults refuse calls for 15 s after the recovery on average, a multiplier of 2 for
// 45 s; after 90 s, 15 s against 102 s; after 10 min, 15 s against 136 s, where growth spares
// the sick service 16 of its 23 requests. One client's trial calls cost a sick service
// little; a fleet's are better bounded by package fleet, which makes one trial call for the
// whole fleet. Set OpenTimeoutMultiplier for a service that recovers slowly or flaps.
//
// The breaker's hook (OnStateChange) and the decision record's "breaker" field show every
// change of state as before; RetryIn (retry.AdmissionReporter), an [*OpenError]'s RetryIn and
// a retry loop's circuit_open stop (retry.Error.RetryAfter) say the open time learned.
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
