package fakeapi

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Token limits per window, per request the request limit admits: large enough that only the
// request limit ever answers 429.
const (
	tokensPerRequestLimit       = 1000
	inputTokensPerRequestLimit  = 800
	outputTokensPerRequestLimit = 200
)

// quota is the state of the rate limit as one answer publishes it.
type quota struct {
	limit     int           // requests per window
	remaining int           // requests left in the window, after this one
	window    time.Duration // the window's length
	now       time.Time     // when the request arrived
	reset     time.Time     // when the window ends
}

// resetIn returns the time from the request to the reset, rounded up to the millisecond.
func (q quota) resetIn() time.Duration {
	return ceil(q.reset.Sub(q.now), time.Millisecond)
}

// resetSeconds returns the whole seconds from the request to the reset, rounded up.
func (q quota) resetSeconds() int64 {
	return int64(ceil(q.reset.Sub(q.now), time.Second) / time.Second)
}

// resetAt returns the reset, rounded up to the whole second.
func (q quota) resetAt() time.Time {
	t := q.reset.Truncate(time.Second)
	if t.Before(q.reset) {
		t = t.Add(time.Second)
	}
	return t.UTC()
}

// ceil rounds d up to a multiple of unit.
func ceil(d, unit time.Duration) time.Duration {
	if r := d % unit; r > 0 {
		d += unit - r
	}
	return d
}

// publish sets the rate-limit fields of an answer of api in the form headers asks, and, when
// the answer is a 429 (throttled), its retry-after where the API sends one.
func (q quota) publish(h http.Header, api api, headers RateLimitHeaders, throttled bool) {
	used := q.limit - q.remaining
	switch headers {
	case APIHeaders:
		if api.anthropic {
			reset := q.resetAt().Format(time.RFC3339)
			for _, f := range []struct {
				name         string
				limit, spent int
			}{
				{"requests", q.limit, used},
				{"tokens", tokensPerRequestLimit * q.limit, (InputTokens + OutputTokens) * used},
				{"input-tokens", inputTokensPerRequestLimit * q.limit, InputTokens * used},
				{"output-tokens", outputTokensPerRequestLimit * q.limit, OutputTokens * used},
			} {
				h.Set("Anthropic-Ratelimit-"+f.name+"-Limit", strconv.Itoa(f.limit))
				h.Set("Anthropic-Ratelimit-"+f.name+"-Remaining", strconv.Itoa(f.limit-f.spent))
				h.Set("Anthropic-Ratelimit-"+f.name+"-Reset", reset)
			}
			if throttled {
				h.Set("Retry-After", strconv.FormatInt(q.resetSeconds(), 10))
			}
			return
		}
		reset := q.resetIn().String()
		tokens := tokensPerRequestLimit * q.limit
		h.Set("X-Ratelimit-Limit-Requests", strconv.Itoa(q.limit))
		h.Set("X-Ratelimit-Remaining-Requests", strconv.Itoa(q.remaining))
		h.Set("X-Ratelimit-Reset-Requests", reset)
		h.Set("X-Ratelimit-Limit-Tokens", strconv.Itoa(tokens))
		h.Set("X-Ratelimit-Remaining-Tokens", strconv.Itoa(tokens-(InputTokens+OutputTokens)*used))
		h.Set("X-Ratelimit-Reset-Tokens", reset)
	case IETFHeaders:
		h.Set("RateLimit-Policy", fmt.Sprintf(`"default";q=%d;w=%d`, q.limit, int64(ceil(q.window, time.Second)/time.Second)))
		h.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%d`, q.remaining, q.resetSeconds()))
	case XRateLimitHeaders, XRateLimitEpochHeaders:
		h.Set("X-RateLimit-Limit", strconv.Itoa(q.limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(q.remaining))
		if headers == XRateLimitHeaders {
			h.Set("X-RateLimit-Reset", strconv.FormatInt(q.resetSeconds(), 10))
		} else {
			h.Set("X-RateLimit-Reset", strconv.FormatInt(q.resetAt().Unix(), 10))
		}
	}
}
