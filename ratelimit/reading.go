package ratelimit

import "time"

// Reading is what one response said about one of a destination's quotas: its size, how much
// of it is left, and when it is back. Package retryhttp reads them from the headers that
// servers send on every response: OpenAI's x-ratelimit-{limit,remaining,reset}-*,
// Anthropic's anthropic-ratelimit-*-{limit,remaining,reset}, the IETF RateLimit and
// RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers), and the older
// RateLimit-Limit/-Remaining/-Reset and X-RateLimit-* headers.
type Reading struct {
	// Quota names the quota: "requests" for a count of requests; "tokens", "input-tokens"
	// or "output-tokens" for an LLM API's token quotas; or the name of an IETF RateLimit
	// policy, which counts requests unless the server says otherwise.
	Quota string
	// Limit is the quota's size: how many units one window allows. 0 when the response did
	// not say.
	Limit int64
	// Remaining is how many units are left before Reset. Negative when the response did not
	// say.
	Remaining int64
	// Reset is how long after the response arrived the quota is back: in full for a window
	// that ends, or the time a token-bucket quota needs to refill. 0 when the response did
	// not say.
	Reset time.Duration
	// Window is the length of the quota's window when the response said it (the IETF
	// RateLimit-Policy's w parameter); 0 when it did not.
	Window time.Duration
	// From names the header that gave the reading, in lower case, for the decision records.
	From string
}
