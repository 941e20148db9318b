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
// or more, with no less remaining, is the next window). A staler reading, which answers an
// attempt the server counted earlier but which arrived later, changes neither: its reset is
// late by the time it took to arrive. A reading without a reset tells only the limit and
// the window.
//
// A window the server does not say is estimated as the largest reset seen, rounded up to a
// common window length (1 s, 2 s, 5 s, ..., 1 min, ..., 1 h, ...), as the first reading of a
// window comes some time after it started; or as the time between consecutive windows'
// resets, when longer by more than a tenth. It is not estimated below 1 s from resets
// alone: a short reset says a short window, or the end of a long one, and taking the last
// 187 ms of a 1 s window for a 200 ms window would release its limit five times over. (A
// shorter window is used when the server says it, the IETF w.) The estimate is provisional:
// later readings correct it, and the windows from the reset are then numbered anew, the
// times already given keeping.
//
// Observe is told the readings of an answer before Done is told its result: the gate takes
// the answer to be the earliest attempt sent and not answered yet, and when Done names
// another (answers that arrive together, or out of order), it corrects the guess.
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
//   - From the reset on, each window's limit is released at the window's start, spread
//     evenly over its first tenth (releaseShare), and the attempts beyond it go into the
//     next window. A limit's whole quota is back at its reset: a fixed window's count
//     starts again, a token bucket whose reset is when it is full (OpenAI's and Anthropic's)
//     holds the limit, and a sliding log has forgotten a burst a window old. Released then,
//     it serves callers with deadlines as the server would; paced over the window, it
//     would not (against 50 requests a second, of 200 calls with a 1.5 s deadline the SDKs'
//     own loop gets 100 through, 50 at once and 50 after the reset; pacing, 75). The spread
//     keeps the release from landing in one instant, and lets a token bucket refill a tenth
//     of its limit meanwhile.
//   - An attempt asked for a time between two windows' releases goes then, when its window
//     left a unit unused before that time, holding a unit of the next window too; else it
//     takes the next release. So any window-long span holds at most the limit of requests,
//     whatever times are asked (each window's units are numbered and released in the same
//     pattern, and an attempt between releases holds a unit of both windows a span could
//     share it with). An attempt asked for a later time takes a later place without pushing
//     back those asked for earlier.
//   - A reset is read late, never early: from an answer that arrived some time after the
//     server set it, often rounded up. A reset read within a tenth of a window after the
//     start of a window already numbered is that window's, and its release starts at that
//     start. An attempt admitted from what the current window has left in the last tenth
//     before its reset holds a unit of the next window too, as it may count in it.
//   - The attempts sent before the freshest reading arrived count as unseen until their
//     answers come, though the server may have counted them already. While such answers
//     could show room in the current window for an attempt, it asks again (token 0 and a
//     time after notBefore) at 1 ms, 2 ms, 4 ms, ... after that reading, before the reset,
//     rather than take the next window: as many attempts as the answers could let in (the
//     server counted at most its limit less the remaining, and every answer read was one of
//     those). An attempt that no answer could let in takes its time at once.
//   - For token quotas ("tokens", "input-tokens", "output-tokens"), a caller may state an
//     attempt's expected cost ([Gate.ReserveN]); it counts against their remaining, and
//     after the reset holds that many of a window's units, which never straddle two
//     windows: each window releases at most its limit of tokens (a cost above it, alone).
//     Without a cost, a token quota acts only through its reset on a throttle.
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
//     before the reset, or its units of the windows after it.
//   - Stale information expires: a quota whose reset has passed, and then a window with
//     nothing read of it and no reservation holding its units, is forgotten. A gate with
//     nothing left to say returns to the free path.
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
// # Sharing a quota
//
// A quota often belongs to an account or an API key that several processes share.
// [Gate.Snapshot] and [Gate.Share] let package fleet's rate gate share a gate's knowledge
// once per tick, local first: each replica's gate takes in the fleet's views of the quotas
// as it takes readings (fresher wins), but answering none of its own attempts; a throttle's
// hold seen anywhere; and its [Part] of every quota. Of what is left before a reset, a
// gate admits the units in its part (the replicas' parts tiling [0, 1), they admit no more
// than is left between them), split anew at each exchange and for each window it learns
// of, less what it admits: a fresher reading, lower because others sent too, does not split
// the window again. From the reset on, it releases the units of each window's limit whose
// places fall in its part, over the window's first tenth; the places turn from one window
// to the next by the golden ratio's fraction of a unit, as a function of the window's start
// alone, so that the replicas' parts release exactly the limit between them in every
// window, and each part its size of it on average, even a part smaller than a unit (more
// replicas than a window has units: each sends in its share of the windows). Only the
// quotas are shared: the adaptive rate and the first-contact probe stay each gate's own.
//
// This package imports the standard library and package retry only.
package ratelimit
