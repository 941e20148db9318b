// Package ratelimit paces the requests sent to a destination to the rate limit the
// destination publishes, so that a request waits for its turn on the client rather than
// being sent into a refusal (HTTP 429 Too Many Requests, RFC 6585 section 4).
//
// A [Gate] implements retry.RateGate for one destination; a [Group] keeps one per
// destination. A retry loop reserves a time before every attempt, the first included,
// waits for it when its deadline allows (else it stops with
// retry.ReasonRateLimitExceedsDeadline and cancels the reservation), and reports the
// attempt's result. Package retryhttp reads each answer's rate-limit headers into
// [Reading]s and hands them to [Gate.Observe].
//
// # What the gate learns
//
// Servers say how much of a quota is left and when it is back on every answer, not only on
// a 429: OpenAI's x-ratelimit-{limit,remaining,reset}-{requests,tokens}, Anthropic's
// anthropic-ratelimit-*-{limit,remaining,reset} (both in their API's rate-limit guides),
// and the IETF RateLimit and RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers:
// a policy's quota q and window w, the remaining r and the reset t). Each quota gets a view:
// its limit, its window, and the current window's remaining and reset. Fresher information
// wins: a lower remaining in the same window, or a later reset (a reset half a window later
// or more, with no less remaining, is the next window); a staler reading, which answers an
// attempt the server counted earlier but which arrived later, only moves the reset later. A
// window the server does not say is estimated as the largest reset seen, rounded up to a
// common window length (1 s, 1 min, 1 h, ...), as the first reading of a window comes some
// time after it started; or as the time between consecutive windows' resets, when longer.
// A reading without a reset tells only the limit and the window. Observe is told the
// readings of an answer before Done is told its result: the gate takes the answer to be the
// earliest attempt sent and not answered yet.
//
// # The rules
//
//   - Costs nothing where no server has told of a limit: with no reading, no throttle and
//     no probe, Reserve returns notBefore and token 0, from one atomic load.
//   - Before a quota's reset, the gate admits at once what the freshest reading left, less
//     what it admitted since: the attempts in flight when a reading arrives were not counted
//     by the server, and count against what it says is left; the attempt the reading
//     answers, and every attempt answered before it, were, and do not. So nothing is
//     counted twice, and no more is admitted than the server said is left.
//   - Once nothing is left, an attempt is given a time at or after the reset: the loop
//     waits, or stops when that does not fit its deadline.
//   - From the reset on, attempts are released at the limit's pace, not all at once: each
//     holds window/limit of a calendar, so that any window-long span holds at most the
//     limit. An attempt asked for a later time takes a later place without pushing back
//     those asked for earlier.
//   - For token quotas ("tokens", "input-tokens", "output-tokens"), a caller may state an
//     attempt's expected cost ([Gate.ReserveN]); it counts against their remaining and
//     holds cost·window/limit of their pace. Without a cost, a token quota acts only
//     through its reset on a throttle.
//   - A throttle (retry.ResultThrottled: a 429) holds every later reservation until the
//     server's wait (Retry-After, RFC 9110 section 10.2.3), which also brings forward an
//     exhausted quota's reset; without a wait, until the exhausted quota's reset.
//     Reservations made before the throttle keep their times.
//   - Without any reading of a request limit, and once a 429 came without a wait (a 429
//     with a Retry-After says when to come back, and the gate holds until then), the gate
//     adapts from the 429s alone, as AWS's adaptive retry mode does (the AWS SDKs' "adaptive" retry mode; aws-sdk-go-v2
//     aws/retry, botocore retries/adaptive.py): off until the first throttle; the send rate
//     is measured over half seconds, smoothed with weight 0.8; each throttle cuts the rate
//     to β = 0.7 times the rate it came at, and other answers let it grow back along CUBIC's
//     curve C·(t−K)³ + W_max with C = 0.4 (RFC 9438 section 4), never above twice the
//     measured rate nor below 0.5 attempts a second. Attempts are spaced 1/rate apart (where
//     AWS's bucket would let a second's worth go at once). It is forgotten once it limits
//     nothing: 2K after the last throttle, the curve above twice the measured rate.
//   - Cancel gives a reservation's place back, whether or not it is the latest: its count
//     before the reset, or its time in the pace after it.
//   - Stale information expires: a quota whose reset has passed, and then a window with
//     nothing read of it and no reservation paced by it, is forgotten. A gate with nothing
//     left to say returns to the free path.
//   - First contact ([Config].ProbeWait, off by default): while a destination has never
//     answered, the first attempt goes alone and the others wait for its answer, at most
//     ProbeWait. As the gate cannot wake a waiting caller, it has them ask again (token 0 and
//     a time after notBefore) at 1 ms, 2 ms, 4 ms, ... after the probe was sent: they learn
//     of its answer within twice the time it took. It is meant for callers that start many
//     attempts at once against an API that publishes its limit, such as an LLM API under
//     its SDK: without it, a burst of first attempts goes out before any answer tells the
//     limit.
//
// # Time, concurrency and cost
//
// Every method is told the time, and no method blocks, sleeps, reads a clock or starts a
// goroutine: the retry loop stays free of clocks, and a simulator can drive the gate on
// virtual time. Every method is safe for concurrent use. The lock-free path allocates
// nothing; a gate that knows of a limit takes one lock per call and keeps a record per
// reservation until its Done or Cancel.
//
// The gate's state and every rule that changes it are in one struct, so that a fleet gate
// can wrap it: local first, sharing the quotas' views with the fleet once per tick.
//
// This package imports the standard library and package retry only.
package ratelimit
