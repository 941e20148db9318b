// Package budget caps retries across all the calls that share a budget, so that a fleet of
// clients cannot turn a sick service's failures into a retry storm.
//
// Two budgets implement retry.RetryBudget; set one as retry.Policy.Budget and share it among
// every loop that calls the same service:
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
// Both types are safe for concurrent use and allocate nothing per call. Both, and a Group,
// may be made outside a testing/synctest bubble and used inside: they count on its clock.
// This package imports the standard library and package retry only.
package budget
