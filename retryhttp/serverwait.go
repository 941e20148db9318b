package retryhttp

import (
	"math"
	"net/http"
	"strings"
	"time"
)

// The sources of a server's wait, as the decision record's retry_after_from names them: the
// header's name in lower case.
const (
	fromRetryAfterMs   = "retry-after-ms"
	fromMSRetryAfterMs = "x-ms-retry-after-ms"
	fromRetryAfter     = "retry-after"
	fromRateLimit      = "ratelimit"
)

// waitHeader is a header that asks for a wait by itself: its key as net/http stores it, its
// name in records, and how its value reads.
type waitHeader struct {
	key, from string
	millis    bool // milliseconds (retry-after-ms); else Retry-After's seconds or HTTP-date
}

// waitHeaders are the headers that ask for a wait, in the order the SDKs of OpenAI,
// Anthropic and Azure read them: the milliseconds first, which are more precise.
var waitHeaders = [...]waitHeader{
	{"Retry-After-Ms", fromRetryAfterMs, true},
	{"X-Ms-Retry-After-Ms", fromMSRetryAfterMs, true},
	{"Retry-After", fromRetryAfter, false},
}

// serverWait returns the wait a response with status and header h asks for, counted from
// received, when it arrived, and the header that gave it (its name in lower case):
//   - when any of retry-after-ms, x-ms-retry-after-ms and Retry-After is present, the
//     longest wait among those that parse (never earlier than any of them asks); one that is
//     present but malformed asks for nothing, and when none parses the backoff applies;
//   - otherwise the longest reset among the quotas the response says are exhausted: the
//     IETF RateLimit field's policies with r=0 and, on a 429, the quota headers of OpenAI
//     and Anthropic (see quotaWait).
//
// A date (Retry-After's HTTP-date, Anthropic's RFC 3339 resets) is on the server's clock:
// the response's Date, when valid, stands for now, which removes clock skew.
func serverWait(h http.Header, status int, received time.Time) (wait time.Duration, from string, ok bool) {
	asked := false
	for _, w := range waitHeaders {
		v := h[w.key]
		if len(v) == 0 {
			continue
		}
		asked = true
		var d time.Duration
		var valid bool
		if w.millis {
			d, valid = parseMilliseconds(v[0])
		} else {
			d, valid = ParseRetryAfter(v[0], serverNow(h, received))
		}
		if valid && (!ok || d > wait) {
			wait, from, ok = d, w.from, true
		}
	}
	if asked {
		return wait, from, ok
	}
	if v := h["Ratelimit"]; len(v) > 0 {
		wait, ok = ParseRateLimit(strings.Join(v, ","))
		if ok {
			from = fromRateLimit
		}
	}
	if status == http.StatusTooManyRequests {
		if d, f, found := quotaWait(h, received); found && (!ok || d > wait) {
			wait, from, ok = d, f, true
		}
	}
	return wait, from, ok
}

// serverNow is the server's time of a response received at received: its Date header when
// valid, else received.
func serverNow(h http.Header, received time.Time) time.Time {
	if d := h["Date"]; len(d) > 0 {
		if t, err := parseHTTPDate(d[0]); err == nil {
			return t
		}
	}
	return received
}

// parseMilliseconds parses the value of retry-after-ms or x-ms-retry-after-ms: a
// non-negative number of milliseconds, digits with an optional fraction ("1500", "1500.5"),
// as the SDKs of OpenAI, Anthropic and Azure read it. Spaces and tabs around it are
// ignored. A sign, an exponent or anything else is malformed; a value too long for a
// time.Duration saturates at about 292 years.
func parseMilliseconds(value string) (time.Duration, bool) {
	v := strings.Trim(value, " \t")
	whole, frac, hasFrac := strings.Cut(v, ".")
	if !allDigits(whole) || hasFrac && !allDigits(frac) {
		return 0, false
	}
	return scaled(whole, frac, uint64(time.Millisecond)), true
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// scaled returns whole.frac units (both strings of ASCII digits, frac possibly empty) as a
// Duration, truncated to the nanosecond and saturating at the largest Duration.
func scaled(whole, frac string, unit uint64) time.Duration {
	const limit = math.MaxInt64
	most := limit / unit // the most whole units a Duration holds
	var n uint64
	for i := 0; i < len(whole); i++ {
		d := uint64(whole[i] - '0')
		if n > (most-d)/10 {
			return limit
		}
		n = n*10 + d
	}
	total := n * unit
	// The fraction: f / 10^k units, with k at most 18 digits (beyond them, less than a
	// nanosecond even for an hour), computed without overflow: f·unit < 10^k·unit.
	f, pow := uint64(0), uint64(1)
	for i := 0; i < len(frac) && i < 18; i++ {
		f, pow = f*10+uint64(frac[i]-'0'), pow*10
	}
	if f != 0 {
		total += mulDiv(f, unit, pow)
	}
	return time.Duration(min(total, limit))
}
