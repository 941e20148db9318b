package retryhttp

import (
	"math/bits"
	"net/http"
	"strings"
	"time"
)

// quotaHeader is one quota of an API's rate-limit headers: the header saying how much of it
// is left, and the one saying when it resets, with its name in records.
type quotaHeader struct {
	remaining, reset, from string
	date                   bool // the reset is an RFC 3339 time (Anthropic); else a Go duration (OpenAI)
}

// quotaHeaders are the rate-limit headers of OpenAI
// (https://platform.openai.com/docs/guides/rate-limits, a reset written as a Go duration:
// "1s", "6m0s", "12ms") and Anthropic
// (https://docs.anthropic.com/en/api/rate-limits, a reset written as an RFC 3339 time).
var quotaHeaders = [...]quotaHeader{
	{"X-Ratelimit-Remaining-Requests", "X-Ratelimit-Reset-Requests", "x-ratelimit-reset-requests", false},
	{"X-Ratelimit-Remaining-Tokens", "X-Ratelimit-Reset-Tokens", "x-ratelimit-reset-tokens", false},
	{"Anthropic-Ratelimit-Requests-Remaining", "Anthropic-Ratelimit-Requests-Reset", "anthropic-ratelimit-requests-reset", true},
	{"Anthropic-Ratelimit-Tokens-Remaining", "Anthropic-Ratelimit-Tokens-Reset", "anthropic-ratelimit-tokens-reset", true},
	{"Anthropic-Ratelimit-Input-Tokens-Remaining", "Anthropic-Ratelimit-Input-Tokens-Reset", "anthropic-ratelimit-input-tokens-reset", true},
	{"Anthropic-Ratelimit-Output-Tokens-Remaining", "Anthropic-Ratelimit-Output-Tokens-Reset", "anthropic-ratelimit-output-tokens-reset", true},
}

// quotaWait returns the longest wait until an exhausted quota resets, among the quotas whose
// remaining header says 0 and whose reset header parses, and the reset header that gave it.
// received is when the response arrived; an RFC 3339 reset is compared with the response's
// Date when valid (the server's clock), and one that is not in the future asks for nothing.
func quotaWait(h http.Header, received time.Time) (wait time.Duration, from string, ok bool) {
	for _, q := range quotaHeaders {
		left, reset := h[q.remaining], h[q.reset]
		if len(left) == 0 || len(reset) == 0 || strings.Trim(left[0], " \t") != "0" {
			continue
		}
		var d time.Duration
		var valid bool
		if q.date {
			d, valid = parseResetTime(reset[0], serverNow(h, received))
		} else {
			d, valid = parseGoDuration(reset[0])
		}
		if valid && (!ok || d > wait) {
			wait, from, ok = d, q.from, true
		}
	}
	return wait, from, ok
}

// parseResetTime parses an RFC 3339 time ("2026-11-29T12:00:30Z", fractional seconds and
// offsets allowed) and returns how long after now it is; ok is false for a malformed value
// or a time that is not after now.
func parseResetTime(value string, now time.Time) (time.Duration, bool) {
	t, err := time.Parse(time.RFC3339, strings.Trim(value, " \t"))
	if err != nil || !t.After(now) {
		return 0, false
	}
	return t.Sub(now), true // Sub saturates
}

// parseGoDuration parses a non-negative duration as Go's time.Duration.String writes it
// and OpenAI sends it: one or more decimal numbers, each with a unit ("1s", "6m0s", "12ms",
// "1h2m3.5s"; units h, m, s, ms, us, µs, ns). Spaces and tabs around it are ignored. A sign,
// a number without a unit (even "0") or an unknown unit is malformed; a value too long for
// a time.Duration saturates at about 292 years, where time.ParseDuration fails.
func parseGoDuration(value string) (time.Duration, bool) {
	s := strings.Trim(value, " \t")
	if s == "" {
		return 0, false
	}
	var total time.Duration
	for s != "" {
		i := 0
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == 0 {
			return 0, false
		}
		whole, frac := s[:i], ""
		s = s[i:]
		if s != "" && s[0] == '.' {
			j := 1
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j == 1 {
				return 0, false
			}
			frac, s = s[1:j], s[j:]
		}
		unit, n := durationUnit(s)
		if n == 0 {
			return 0, false
		}
		s = s[n:]
		total = addSaturating(total, scaled(whole, frac, unit))
	}
	return total, true
}

// durationUnit reads the unit at the start of s: its length in nanoseconds and in bytes
// (0 bytes when s starts with none).
func durationUnit(s string) (unit uint64, n int) {
	for _, u := range [...]struct {
		name string
		unit time.Duration
	}{{"ns", time.Nanosecond}, {"us", time.Microsecond}, {"µs", time.Microsecond}, {"μs", time.Microsecond},
		{"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}} {
		if strings.HasPrefix(s, u.name) {
			return uint64(u.unit), len(u.name)
		}
	}
	return 0, 0
}

// addSaturating returns a + b for non-negative a and b, or the largest Duration when the
// sum does not fit.
func addSaturating(a, b time.Duration) time.Duration {
	if s := a + b; s >= a {
		return s
	}
	return 1<<63 - 1
}

// mulDiv returns a·b/c, for a < c, without overflow.
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	q, _ := bits.Div64(hi, lo, c) // hi < c since a < c
	return q
}
