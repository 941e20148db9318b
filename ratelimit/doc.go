// Package ratelimit paces the requests sent to a destination to the rate limit the
// destination publishes, so that a request waits for its turn on the client rather than
// being sent into a refusal (HTTP 429 Too Many Requests, RFC 6585 section 4).
//
// This package imports the standard library only.
package ratelimit
