// Package retryhttp retries HTTP requests safely: [Transport] is an [http.RoundTripper] that
// wraps another one (http.DefaultTransport by default) and runs every request through the
// retry loop of package retry (retry.Run), and [NewClient] returns an *http.Client using it.
// It imports the standard library only.
//
// # What is retried
//
// A status is retried when the policy's RetryableStatuses hold it (default 408, 429, 500, 502,
// 503, 504); any other status of 400 or more is returned at once as the response. Following
// RFC 9110 section 15, a status the IANA registry does not list is treated as its class's
// x00 (520, 522, 524, 599 are retried like 500; 499 is permanent like 400), a 413 Content
// Too Large that carries Retry-After is retried after the wait it asks (without it, it is
// permanent), and a status outside 100-599 (a 999 status line, or status 0 from a custom
// RoundTripper) is an invalid response: a retryable failure, never a success
// ([ErrInvalidStatus]). See retry.Policy.RetryableStatuses, and the retry package doc's "HTTP
// statuses" section.
//
// A response's x-should-retry header, which the APIs of OpenAI and Anthropic send, is the
// server's word above its status: "false" stops the loop at once with the response
// (retry.ReasonNonRetryableStatus; for a write whose outcome the attempt left unknown,
// retry.ReasonUnknownOutcome), "true" retries a failure of 400 or more, whatever the policy
// says of its status, as a request the server declined (below). A success stays a success.
//
// Transport errors are retried, except a certificate that does not verify, a server that does
// not speak TLS, and a request net/http refuses to send at all, before writing a byte of it:
// an invalid header or trailer field name or value, an invalid method such as "BAD METHOD",
// an unsupported scheme, a control byte in the URL, or an address the dialer cannot read (a
// port out of range). The same request is refused every time, so it takes 1 attempt and
// stops with retry.ReasonNonRetryableError, for every method: nothing reached the server, so
// a write is not in doubt. A request with no host is refused before any attempt.
//
// Idempotent methods (GET, HEAD, OPTIONS, TRACE, PUT, DELETE; RFC 9110 section 9.2.2) are
// retried on any retryable failure. Other methods (POST, PATCH, ...) are retried only:
//   - when the request never left the client: no byte of it was written, as
//     net/http/httptrace reports it (the transport went to get a connection and reported
//     neither WroteHeaders nor WroteRequest: a refused dial, a DNS failure). A
//     base RoundTripper that reports nothing counts as having sent it;
//   - when the server declined it: 503, or any 4xx the policy retries (RFC 9110 section
//     15.5: the server refused the request as sent, so did not apply it): 429, 408 (no
//     complete request received), 413 with Retry-After, or a 400 or 422 the caller's
//     RetryableStatuses list; 529, the overload refusal of Anthropic's API
//     (overloaded_error); or a failure with x-should-retry: true;
//   - when it carries an idempotency key (Transport.AutoIdempotencyKey, or a key the caller
//     set), under the server's contract that a repeated key is applied once. A
//     409 Conflict on a keyed request (the original still in progress) is retried too; 422 is
//     permanent.
//
// A proxy that refuses the CONNECT tunnel of an https:// URL is judged by its status, like
// any status, once the base http.Transport's OnProxyConnectResponse is [CheckProxyConnect]
// (the command line's is): 407 Proxy Authentication Required, 403 and other statuses the
// policy does not retry stop at once with retry.ReasonNonRetryableError, and 429 and 5xx are
// retried, for writes too, since the request never reached the origin (see
// [ProxyConnectError]). Without the hook, net/http reports the refusal as an error holding
// only the proxy's reason phrase, which is retried like any transport error.
//
// A request the server declared it did not process, an HTTP/2 stream refused with
// REFUSED_STREAM or above the last stream id of a GOAWAY (RFC 9113 sections 8.7 and 6.8),
// had no effect: it is retried like a request never sent, a write included, and when its
// body cannot be sent again the loop stops with retry.ReasonNonRetryableError and
// [ErrNotProcessed] (not applied), never with an unknown outcome. net/http itself re-sends
// such a request when it can rewind the body; that re-send is the attempt's
// transport_resends.
//
// Otherwise a failure after sending (a reset, an EOF, a timeout waiting for the answer, a 500,
// 502 or 504) is an unknown outcome: the loop stops with retry.ReasonUnknownOutcome, and
// errors.Is(err, retry.ErrUnknownOutcome) holds. A [Reconciler] may resolve it
// first; a lookup never sends the write again.
//
// What a keyed write's final failure means: a write with an idempotency key is retried after
// such failures, but the key only makes a resend safe; it does not undo an attempt that
// reached the server. When the loop then fails (attempts exhausted, the deadline, a
// breaker's refusal, the caller's cancellation), the *retry.Error has MayHaveApplied set if
// any attempt reached the server without a decisive answer (a dropped connection, a timeout,
// a 500, 502 or 504, a 409 while the original is in progress): the write may exist. Look it
// up, or send it again later with the same key and body; do not report it as not done.
// MayHaveApplied is false when every attempt was declined (503, 529, a 4xx, or
// x-should-retry: true) or never sent, and it is always true with retry.ReasonUnknownOutcome.
//
// # Bodies and connections
//
// Request bodies are sent byte for byte on every attempt: from GetBody when the request has
// one, else from a copy in memory of at most MaxBufferedBody bytes (1 MiB by default). A
// larger body is streamed once, and a failure that would be retried stops instead with
// [ErrBodyNotReplayable] and retry.ReasonNonRetryableError (retry.ReasonUnknownOutcome for a
// write whose answer never came, which may have been applied).
//
// net/http's own Transport may send a request a second time, by itself, within one attempt:
// an idempotent request (or one whose body it can rewind) when a reused keep-alive connection
// dies before any byte of the answer arrives, and an HTTP/2 request whose stream the server
// refused. The Transport sees each such exchange through net/http/httptrace (one GotConn
// per exchange sent) and reports them as the attempt's Outcome.TransportResends: the
// decision record's transport_resends, retry.Metrics' TransportResends, and a retry budget
// that counts re-sends (budget.Ratio) counts them as retries. The circuit breaker is not told
// of them: a pooled connection that died says nothing about the service, and the attempt's
// own result is reported as usual. A server that reads every request sees exactly the
// attempts plus the re-sends; one that had already closed the connection may not have seen
// the first exchange of a re-send.
//
// A response body is read by the caller after RoundTrip returns, so by default a body cut
// off mid-transfer is the caller's failure, not an attempt's. Set Transport.PreloadBody to
// read up to that many bytes within the attempt: a body that breaks is then a failed
// attempt, retried for idempotent and keyed requests, and an unknown outcome for a write
// without a key. An event stream (text/event-stream) answering a write, such as a chat
// completion with "stream": true, is not preloaded: it reaches the caller as it comes, and
// a stream that breaks is never a reason to send the write again, key or no key, since the
// generation ran and a resent one may be billed twice. Transport.ResendBrokenStreams opts
// in to preloading such streams too.
//
// The body of every response that is not returned is drained (up to 64 KiB, for at most
// 100 ms) and closed before the attempt's context ends, so its keep-alive connection is
// reused; a slower or longer body's connection is closed instead. The body of a stop's
// response (see ResponseError) is read ahead within the same bounds, and handed on as it
// comes when it goes on. The returned response's body stays readable after RoundTrip
// returns: the last attempt's context ends when that body is closed. That context carries
// the loop's deadline, so the policy's Timeout (30 s by default) bounds the reading of the
// body too: a download that may take longer needs a longer Timeout, or NoLimit with a
// deadline of its own on the request's context.
//
// # Server waits
//
// A retryable response may ask for a wait, in any of these headers; the loop never retries
// earlier (jitter and the policy's RetryAfterSpread only lengthen it, and only within
// MaxWait and the deadline), and stops at once with retry.ReasonRetryAfterExceedsDeadline
// when the wait does not fit before the deadline, or retry.ReasonRetryAfterExceedsMaxWait
// when it exceeds the policy's MaxWait. The response is then returned inside a
// [*ResponseError], so its status and body are not lost. The decision record names the
// header that gave the wait (retry_after_from, the header's name in lower case), and so does
// the *retry.Error's RetryAfterFrom.
//
//   - Retry-After, in seconds or as an HTTP-date in any of the three formats of RFC 9110
//     section 5.6.7 (see [ParseRetryAfter], which also reads IMF-fixdate's common
//     near-misses, a one-digit day or the zone UTC or +0000; a fraction of a second,
//     which RFC 9110 does not allow, is malformed), counted from when the response
//     headers arrived;
//   - retry-after-ms (OpenAI, Anthropic) and x-ms-retry-after-ms (Azure), a number of
//     milliseconds, a fraction allowed ("1500", "1500.5"), which their SDKs read before
//     Retry-After;
//   - the IETF RateLimit field (draft-ietf-httpapi-ratelimit-headers, a Structured Field
//     List of RFC 9651: `RateLimit: "default";r=0;t=30`): t seconds for a policy at r=0
//     (see [ParseRateLimit]); a field that is not a valid List is ignored whole, as the
//     draft requires;
//   - the reset of a quota that the response says is exhausted, its remaining count 0:
//     OpenAI's x-ratelimit-reset-requests and -tokens, a Go duration ("1s", "6m0s"), with
//     x-ratelimit-remaining-requests or -tokens; Anthropic's
//     anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset, an RFC 3339
//     time, with the matching -remaining; and the older RateLimit-Reset and
//     X-RateLimit-Reset, with RateLimit-Remaining and X-RateLimit-Remaining, whose value is
//     seconds to wait or a Unix time (below).
//
// The loop waits the longest of all the waits these headers ask, whatever the retryable
// status: with retry-after: 2 and retry-after-ms: 2500, 2.5 s; with Retry-After: 1 and
// RateLimit: "default";r=0;t=3, 3 s; never earlier than any of them asks. (The draft lets a
// client ignore t when Retry-After is present; waiting the longer honours both.) A value
// that is present but malformed asks for nothing and shortens no other wait; when no header
// asks, the policy's backoff applies. A body may ask too: see "Bodies that say why".
//
// RateLimit-Reset and X-RateLimit-Reset: servers write either the seconds to wait (the IETF
// drafts up to -06, most APIs) or the Unix time when the quota comes back (GitHub; Discord
// with a fraction, "1470173023.123"). The magnitude tells them apart: below 10^9 (31.7 years
// as a wait; 2001-09-09 as a time, before any server's clock) a value is seconds to wait,
// from 10^9 a Unix time in seconds, and from 10^12 (beyond the year 33000 in seconds) a Unix
// time in milliseconds. A Unix time is a date on the server's clock, as below.
//
// Clock skew: an HTTP-date, an RFC 3339 reset or a Unix time is the server's clock, so the
// Transport subtracts the response's own Date header (the server's clock too) rather than
// the local time, which makes the wait independent of skew. Without a valid Date header the local
// clock is used, and a skew of s seconds shortens or lengthens the wait by s; a date that is
// not in the future by the clock used falls back to the backoff rather than retrying at once.
// Retry-After on 3xx is not acted upon: the transport returns redirects as they are and
// http.Client follows them.
//
// # Bodies that say why
//
// Some answers say in their body what their status does not. The body of a retryable 4xx
// (a 429, mostly) that is JSON, or of no declared type, is read up to 8 KiB, for at most
// 100 ms, before the retry is decided, for these signals:
//   - a billing or spend-limit error makes it permanent: the response is returned at once,
//     not retried (retry.ReasonNonRetryableStatus), and no circuit breaker counts it as a
//     failure. They are OpenAI's insufficient_quota, in error.type or error.code, with the
//     codes that name its cause (credit_balance_exhausted, organization_spend_limit_exceeded,
//     project_spend_limit_exceeded, organization_usage_limit_exceeded), and Anthropic's
//     billing_error (error.type of a 402) and enforced_spend_limit_reached
//     (error.details.error_code of the 429 that answers an organization over its monthly
//     spend cap, which has no retry-after). x-should-retry: true overrides them;
//   - a google.rpc.RetryInfo in error.details, which Google's APIs, Gemini's among them, send
//     on a 429 RESOURCE_EXHAUSTED without a wait header ("retryDelay": "1.84s"), is a
//     server's wait, named "retry-info" in the records: the longest of it and the headers'
//     waits applies.
//
// Transport.ClassifyBody adds rules of one's own, for every response of status 400 or
// more. The body reaches its reader unchanged: the bytes read come again before the rest.
// Signals past the first 8 KiB are not seen (a JSON body cut there says nothing). A body
// slower than 100 ms is closed after the bytes that came, which its reader then gets before
// an error. A body that is retried is drained and closed, as any.
//
// # Rate limits
//
// Every destination (scheme, host and port) has a rate gate of package ratelimit, which
// paces the requests sent to it to the limit its answers publish, unless Transport.RateGates
// or the policy's RateGate gives another; the default gates are one set per Transport
// value, as the default budgets are. The gate is told the result of every attempt it let
// go, with the wait its answer asked for, and the rate-limit headers of every answer, a
// success's too (their forms are those of "Server waits"):
//   - OpenAI's x-ratelimit-{limit,remaining,reset}-{requests,tokens};
//   - Anthropic's anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset};
//   - the IETF RateLimit and RateLimit-Policy fields;
//   - the older RateLimit-Limit, -Remaining and -Reset, and X-RateLimit-Limit, -Remaining
//     and -Reset.
//
// Before every attempt, the first included, the loop asks the gate for a time to send: while
// a quota has nothing left before its reset, the attempt waits for its turn when the
// deadline and MaxWait allow it, and otherwise the loop stops at once with
// retry.ReasonRateLimitExceedsDeadline (retry.ReasonRetryAfterExceedsMaxWait past MaxWait),
// the *retry.Error's RetryAfter saying when the gate would have let it go. From the reset
// on, the waiting attempts go at the limit's pace, not all at once. The record of an attempt
// that waited says how long (gate_wait_ms). A gate costs nothing until an answer tells of a
// limit.
//
// The requests of an SDK's loop (below) use gates that also probe a destination that has
// never answered: its first request goes alone, and the others wait for its answer, which
// tells the limit, at most SDKProbeWait. [WithTokenCost] states a request's expected token
// cost, which then counts against every token quota the destination publishes; without it,
// a token quota acts only through its reset, on a 429. The policy's RateGate set to
// retry.NoRateGate turns the default gates off.
//
// # Under an SDK's retries
//
// The official SDKs retry by themselves (openai-go and anthropic-sdk-go 3 attempts; see the
// README's "Calling LLM APIs"), and send X-Stainless-Retry-Count on each of their attempts:
// 0, then 1, 2. A request that carries it gets one attempt per SDK attempt, numbered as the
// SDK numbers it (retry.Operation.OuterAttempt), so that a loop of 3 under the SDK's 3 does
// not make 9 requests, and the loop's decision after it becomes the SDK's:
//   - a retry is left to the SDK: the response goes back with X-Should-Retry: true and, when
//     the server or the rate gate asks for a wait, Retry-After-Ms saying it, so that the
//     SDK's next attempt comes then rather than after its own backoff; the retry budget is
//     asked then, as for a retry of the loop's own;
//   - a stop, of any reason, ends the SDK's loop: the response goes back with
//     X-Should-Retry: false, which the SDKs obey (a POST's 500 whose outcome is unknown, a
//     server's wait beyond the time left, the SDK's or the policy's last attempt);
//   - a refusal before any attempt (a circuit breaker OPEN, a rate gate with no time left
//     before the deadline) gets a response made here: status 503 (429 for the rate gate),
//     X-Should-Retry: false, Retry-After-Ms when the refusal knows when to come back, and a
//     JSON error body whose type is the stop's reason; the SDK returns its own error type
//     at once, and [StopOf] reads the stop back from it.
//
// Transport.SDKMaxRetries says how many retries the SDK makes (2 by default, as the SDKs'
// option.WithMaxRetries): the loop's attempt limit is the smaller of the SDK's and the
// policy's. Each SDK attempt is a loop of its own, so Policy.Timeout bounds each of them:
// its wait at the rate gate, its answer, and the reading of the body returned. An answer
// that has not come by then reaches the SDK as an error, which it takes for a connection
// error and sends again; a streamed body that outlives it ends with context.DeadlineExceeded.
// Every decision is recorded with "inner_retries":true and "sdk_attempt" (the
// X-Stainless-Retry-Count): one decision an SDK attempt, and one stop a call. A response
// body that breaks is the SDK's to judge: under an SDK's loop, PreloadBody reads nothing
// ahead. An attempt that failed without a response (a connection dropped) reaches the SDK
// as its error, which the SDK retries as a connection error. To retry under the policy
// instead, with its rules for writes, turn the SDK's retries off and delete the header:
// with openai-go, option.WithMaxRetries(0) and option.WithHeaderDel("X-Stainless-Retry-Count").
//
// # Records and redaction
//
// Every decision goes to the policy's OnDecision, with the request's context, the method
// and the URL as [RedactURL] writes it (the loop's labels, so that a stop before any attempt
// names its request too), the status, the parsed server wait and its header, and the
// reason. Values of
// [SensitiveHeaders], URL userinfo, the query parameters of [SecretParams] and request bodies
// never appear in records, logs or the errors of this package: errors of the base transport
// are rewritten with those values replaced by "REDACTED". http.Client wraps errors in a
// *url.Error that embeds the URL; pass them through [RedactError] before logging them.
//
// # Circuit breakers
//
// The policy's Breaker, when set, guards every request of the Transport. Set
// Transport.Breakers (a breaker.Group, or a fleet.BreakerGroup) instead to give each
// destination (scheme, host and port) a breaker of its own: a host that is down is then
// refused at once with retry.ReasonCircuitOpen while the others are served. Each decision
// record carries the breaker's state. Transport.Budgets (a budget.Group) likewise gives each destination a
// retry budget of its own, so that one sick host does not spend the retries of all.
//
// # Retry budgets
//
// A policy without a Budget gets the default retry budget of each destination (scheme, host
// and port), one set per Transport value (see Transport.Budgets): a budget.Quota sized by
// the Transport's Policy (budget.QuotaFor: 20 retries, or as many as one loop of the policy
// may make), one back per successful attempt, so that one sick host runs dry
// while the others keep their retries. An attempt that never reached the server costs it
// nothing (retry.Outcome.NeverReached): a dial that failed (a refused connection, a DNS
// failure), a stream the server refused unprocessed (REFUSED_STREAM, past a GOAWAY), a
// proxy's refusal of the CONNECT tunnel. retry.NoBudget turns budgets off.
//
// # Hedging
//
// With a Hedger (retry.Policy.Hedge, or one per destination from Transport.Hedges, a
// hedge.Group), a request that has had no answer for the Hedger's delay gets a hedge: a copy
// sent while it is in flight, on a connection of its own for HTTP/1 (on the same one for
// HTTP/2, which multiplexes), whose answer is used if it comes first (retry.RunConcurrent).
// Only a request that may be sent twice is hedged: an idempotent method, or a request with an
// idempotency key (the hedge carries the same key); and only when its body can be sent again
// while the first is being sent: none, GetBody (called for each hedge, so it must be safe for
// concurrent use, as those of http.NewRequest are), or a body buffered whole. A POST or PATCH
// without a key, or a streamed body larger than MaxBufferedBody, is never hedged. The attempt
// that loses is canceled, its response body, if any, drained and closed, and RoundTrip
// returns once it has. A hedge counts against the retry budget as a retry, and is refused
// while the breaker is OPEN, after a Retry-After, or when the deadline leaves less than the
// delay (with exactly the delay left, it is sent); the records say so (see retry.Decision:
// Hedge, Winner, Lost, HedgeRefused).
//
// # Per-request policies
//
// One Transport may serve requests with different needs: [WithPolicy] puts a policy in a
// request's context, and Transport.PolicyFor chooses one from the request (its host, its
// method). The context's policy comes first, then PolicyFor's, then Transport.Policy; the
// destination's breaker, budget and Hedger apply to any of them. Neither costs an allocation.
//
// # Timing
//
// The policy's Timeout (30 s by default) bounds a request's attempts and waits together;
// the request context's deadline, when earlier, wins. Each attempt's context has the deadline
// min(attempt start + AttemptTimeout, loop deadline), so the deadline cancels a request in
// flight. See package retry for the clock used.
package retryhttp
