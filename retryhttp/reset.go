package retryhttp

// This file parses the forms in which rate-limit headers write when a quota comes back
// (see readLimits and splitQuotas).

import (
	"math/bits"
	"strings"
	"time"
)

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

// Where parseResetSeconds tells a wait from a time: below unixSeconds, seconds to wait
// (10^9 s is about 31.7 years, a wait no server asks for; as a Unix time it is 2001-09-09,
// before any server's clock); from unixSeconds, a Unix time in seconds; from unixMillis
// (10^12 s is beyond the year 33000), a Unix time in milliseconds.
const (
	unixSeconds = 1_000_000_000
	unixMillis  = 1_000_000_000_000
)

// parseResetSeconds parses the value of the older RateLimit-Reset and X-RateLimit-Reset
// headers, which servers write either as seconds to wait (the IETF drafts up to -06: "30")
// or as the Unix time when the quota comes back (GitHub: "1735689600"), a fraction allowed
// in both (Discord: "1470173023.123"): digits, optionally a point and digits, spaces and
// tabs around them ignored. Which of the two a value is follows from its magnitude (see
// unixSeconds and unixMillis). A Unix time is compared with the server's clock (the
// response's Date when valid); one that is not after it, or a malformed value, asks for
// nothing. A wait too long for a time.Duration saturates.
func parseResetSeconds(value string, clock *serverClock) (time.Duration, bool) {
	whole, frac, hasFrac := strings.Cut(strings.Trim(value, " \t"), ".")
	if !allDigits(whole) || hasFrac && !allDigits(frac) {
		return 0, false
	}
	n, _ := parseCount(whole)
	var at time.Time
	switch {
	case n < unixSeconds:
		return scaled(whole, frac, uint64(time.Second)), true
	case n < unixMillis:
		at = time.Unix(n, int64(scaled("0", frac, uint64(time.Second))))
	default:
		at = time.UnixMilli(n).Add(scaled("0", frac, uint64(time.Millisecond)))
	}
	now := clock.now()
	if !at.After(now) {
		return 0, false
	}
	return at.Sub(now), true // Sub saturates
}
