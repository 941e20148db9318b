// Package budget caps retries across all the calls that share a budget, so that a fleet of
// clients cannot turn a sick service's failures into a retry storm.
//
// Three budgets implement retry.RetryBudget; set one as retry.Policy.Budget and share it
// among every loop that calls the same service:
//   - [Quota], the default budget of a retry.Policy whose Budget is nil (one per Policy
//     value; retryhttp and retrygrpc keep one per destination): 20 retries, or as many as
//     one loop of the policy may make ([QuotaFor]), or a tenth of the last second's
//     attempts, whichever is most; each retry decided takes one and each successful attempt
//     gives one back, so that it refuses retries only when failures are widespread; an
//     attempt that never reached the server costs nothing.
//   - [Ratio], the Google SRE book's per-client retry budget: retries are allowed while they
//     stay under a share (default 10%) of the requests of a sliding window, plus a small floor
//     of retries per second so that a quiet client can still retry (as Finagle's RetryBudget).
//   - [TokenBucket], gRPC's retry throttling (gRFC A6): failures take a token, successes give
//     back a fraction of one, and retries are allowed only while more than half the tokens
//     remain.
//
// A [Group] keeps one such budget per destination (retryhttp.Transport.Budgets), so that
// one sick host does not spend the retries of the others.
//
// A budget is asked only before a retry: first attempts are never blocked. When it refuses,
// a retry loop stops with retry.ReasonRetryBudgetExhausted before spending any wait.
//
// A throttled attempt (retry.ResultThrottled: an HTTP 429, gRPC's RESOURCE_EXHAUSTED) is no
// failure of the service, and no success either: the service answered but did no work. No
// budget counts it as a failure, and none refills for it as for a success. Quota counts it as
// an attempt (for its allowance of a tenth of the last second's attempts) and gives nothing
// back; Ratio counts it as a request, as every attempt; TokenBucket neither takes a token nor
// gives one back.
//
// All three are safe for concurrent use and allocate nothing per call. They, and a Group,
// may be made outside a testing/synctest bubble and used inside: they count on its clock.
// This package imports the standard library and package retry only.
package budget
