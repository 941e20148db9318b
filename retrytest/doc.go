// Package retrytest helps test code that retries HTTP calls: a scripted flaky HTTP server on
// 127.0.0.1 ([Server]) and a scripted in-memory [http.RoundTripper] ([RoundTripper]) that
// runs inside a testing/synctest bubble, so waits of minutes check in microseconds.
//
// Both play a [Script]: a list of [Step]s, one per request in arrival order, each answering
// with a status, headers and a body, or failing the exchange on purpose:
//   - [Respond] answers (status 0 means 200);
//   - [Reset] closes the connection before the request is read: the server processes nothing;
//   - [Drop] reads and processes the request (a POST creates an order), then closes the
//     connection without an answer: the client cannot know whether its write was applied;
//   - [Refuse] (RoundTripper only) fails before the request leaves the client, like a
//     refused dial.
//
// When the requests outnumber the steps the last step repeats; an empty script answers 200.
// For a client with several upstreams, or a write whose outcome a lookup reconciles, give
// each kind of request a script of its own with [Routes] (net/http ServeMux patterns such
// as "pricing.test/" or "POST /orders"): [NewRoutedServer], [NewRoutedRoundTripper].
// Both count requests, connections (the RoundTripper counts none) and orders: a POST whose
// step is Drop, or Respond with a 2xx status, creates an order. With Script.Dedupe set, a POST
// carrying an Idempotency-Key already seen creates no second order, and one whose key was
// seen with a different body is answered 422 (the key's contract).
//
// The command line's "retry demo" plays these scenarios with a Server:
//  1. GET: 503 with Retry-After: 1, then a connection reset, then 200:
//     Script{Steps: []Step{{Status: 503, Header: http.Header{"Retry-After": {"1"}}}, {Action: Reset}, {Status: 200}}}
//  2. 503 with Retry-After: 120 under a 10 s timeout: the client stops at once
//     (retry_after_exceeds_deadline) with the 503 in hand:
//     Script{Steps: []Step{{Status: 503, Header: http.Header{"Retry-After": {"120"}}}}}
//  3. POST without an idempotency key, connection dropped after the server read it: the
//     client stops with unknown_outcome and Orders() is 1:
//     Script{Steps: []Step{{Action: Drop}, {Status: 201}}}
//  4. the same POST with an automatic idempotency key: the client retries with the same key
//     and body, the server deduplicates, Orders() is 1:
//     Script{Steps: []Step{{Action: Drop}, {Status: 201}}, Dedupe: true}
//
// For an API whose real servers a test cannot reach (an LLM API's rate limits and streams),
// [PipeServer] serves any http.Handler with net/http's own server over in-memory
// connections, so that the handler, the client and their waits all run inside a
// testing/synctest bubble.
//
// Everything here imports the standard library only and is safe for concurrent use.
package retrytest
