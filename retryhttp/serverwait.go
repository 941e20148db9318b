package retryhttp

import (
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/retrykit/retry/ratelimit"
)

// The sources of a server's wait, as the decision record's retry_after_from names them: the
// header's name in lower case.
const (
	fromRetryAfterMs   = "retry-after-ms"
	fromMSRetryAfterMs = "x-ms-retry-after-ms"
	fromRetryAfter     = "retry-after"
	fromRateLimit      = "ratelimit"
	// fromRateLimitPolicy names a Reading of the IETF RateLimit-Policy field alone: it says
	// what the quota is, never a wait.
	fromRateLimitPolicy = "ratelimit-policy"
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

// serverWait returns the wait a retryable response with header h, received at received,
// asks for, and the header that gave it (its name in lower case, for retry_after_from): the
// longest of
//   - retry-after-ms, x-ms-retry-after-ms and Retry-After, each that parses (Retry-After
//     read by ParseRetryAfter);
//   - the reset of each quota that limits, readLimits' Readings of h, says is exhausted:
//     Remaining 0 and a Reset after now, whatever the response's status (the IETF
//     RateLimit field's t, OpenAI's and Anthropic's resets, RateLimit-Reset and
//     X-RateLimit-Reset).
//
// The longest wins, so that the retry comes no earlier than any header asks (SPEC R4.4). A
// header that is present but malformed asks for nothing and shortens nothing; when none of
// them asks, ok is false and the policy's backoff applies (R4.3). On a tie the first in the
// order above wins. A date (Retry-After's HTTP-date) is on the server's clock: the response's
// Date, when valid, stands for now, which removes clock skew.
func serverWait(h http.Header, limits []ratelimit.Reading, received time.Time) (wait time.Duration, from string, ok bool) {
	for _, w := range waitHeaders {
		v := h[w.key]
		if len(v) == 0 {
			continue
		}
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
	for _, r := range limits {
		if r.Remaining == 0 && r.Reset > 0 && (!ok || r.Reset > wait) {
			wait, from, ok = r.Reset, r.From, true
		}
	}
	return wait, from, ok
}

// responseWait is serverWait of a response, with its Readings read into a buffer on the
// stack.
func responseWait(h http.Header, received time.Time) (time.Duration, string, bool) {
	var buf [limitsOnStack]ratelimit.Reading
	return serverWait(h, readLimits(h, received, buf[:0]), received)
}

// serverNow is the server's time of a response received at received: its Date header when
// valid, else received.
func serverNow(h http.Header, received time.Time) time.Time {
	c := serverClock{received: received}
	if d := h["Date"]; len(d) > 0 {
		c.date = d[0]
	}
	return c.now()
}

// serverClock is the server's time when a response arrived: its Date header when valid,
// which removes clock skew from a reset written as a time, else the local time received;
// the Date is parsed when first needed.
type serverClock struct {
	date     string
	received time.Time
	at       time.Time
	parsed   bool
}

func (c *serverClock) now() time.Time {
	if !c.parsed {
		c.parsed, c.at = true, c.received
		if c.date != "" {
			if t, err := parseHTTPDate(c.date); err == nil {
				c.at = t
			}
		}
	}
	return c.at
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
