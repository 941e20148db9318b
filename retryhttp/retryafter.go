package retryhttp

import (
	"math"
	"net/http"
	"strings"
	"time"
)

// maxSeconds is the largest delay-seconds a time.Duration holds (about 292 years).
const maxSeconds = math.MaxInt64 / int64(time.Second)

// ParseRetryAfter parses a Retry-After header value (RFC 9110 section 10.2.3) and returns the
// wait it asks for, counted from now, the moment the response arrived.
//
// Both forms are accepted: delay-seconds (one or more ASCII digits, leading zeros allowed)
// and an HTTP-date in any of the three formats RFC 9110 section 5.6.7 requires recipients to
// accept: IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the obsolete RFC 850 form
// ("Sunday, 06-Nov-94 08:49:37 GMT", whose two-digit year is read as 1969-2068) and ANSI C's
// asctime ("Sun Nov  6 08:49:37 1994"). Spaces and tabs around the value are ignored.
// Following section 5.6.7's advice that recipients be robust, and urllib3, the common
// near-misses of IMF-fixdate are read too: a one-digit day ("Mon, 3 Jun 2019 12:00:00 GMT")
// and the zone written "UTC" or "+0000" instead of "GMT", alone or together. Nothing else
// is: another zone, a two-digit year, a missing comma or seconds.
//
// ok is false, so that the policy's own backoff applies, for an empty value; a malformed
// one ("-1", "+5", "1.5", "1e3", "abc", an IMF-fixdate with a two-digit year: RFC 9110
// allows whole seconds only, and a fraction, which the SDKs of OpenAI and Anthropic read,
// is malformed here, as the command line's contract has it); and a
// date that is not after now (the past, however far). A wait too long for a time.Duration
// (a 20-digit number of seconds, a date centuries ahead) is well formed and means "not for a
// very long time": it saturates at about 292 years, so the retry loop stops
// (retry_after_exceeds_deadline or _max_wait) rather than retry earlier than the server
// asked, and certainly never at once. A parsed wait is never negative and nothing
// overflows.
//
// A date is compared with now, so it is only as right as the two clocks agree; the
// Transport passes the response's Date header as now when it has one, which removes the
// skew (see the package documentation). ParseRetryAfter is safe for concurrent use.
func ParseRetryAfter(value string, now time.Time) (wait time.Duration, ok bool) {
	v := strings.Trim(value, " \t")
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' { // delay-seconds; every date form starts with a day name
		if !allDigits(v) {
			return 0, false
		}
		return min(scaled(v, "", uint64(time.Second)), time.Duration(maxSeconds)*time.Second), true
	}
	t, err := parseHTTPDate(v)
	if err != nil || !t.After(now) {
		return 0, false
	}
	return min(t.Sub(now), time.Duration(maxSeconds)*time.Second), true // Sub saturates too
}

// parseHTTPDate parses an HTTP-date (RFC 9110 section 5.6.7) with http.ParseTime, or else
// as one of IMF-fixdate's common near-misses: a one-digit day, the zone "UTC" or "+0000".
// A near-miss is rewritten as the IMF-fixdate it stands for and then checked character by
// character, so that nothing looser than the rewrite gets through.
func parseHTTPDate(v string) (time.Time, error) {
	t, err := http.ParseTime(v)
	if err == nil {
		return t, nil
	}
	fixed := v
	if len(fixed) > 6 && fixed[3:5] == ", " && isDigit(fixed[5]) && fixed[6] == ' ' {
		fixed = fixed[:5] + "0" + fixed[5:] // "Mon, 3 Jun" -> "Mon, 03 Jun"
	}
	for _, zone := range []string{" UTC", " +0000"} {
		if strings.HasSuffix(fixed, zone) {
			fixed = strings.TrimSuffix(fixed, zone) + " GMT"
		}
	}
	if fixed == v || !strictFixdate(fixed) {
		return time.Time{}, err
	}
	return http.ParseTime(fixed)
}

// strictFixdate reports whether s has IMF-fixdate's exact shape, "Sun, 06 Nov 1994 08:49:37
// GMT": a day name, two-digit day, month name, four-digit year, two-digit hour, minute and
// second, and GMT. (http.ParseTime is looser: it takes a one-digit hour, a month in lower
// case or fractional seconds.)
func strictFixdate(s string) bool {
	const shape = "aaa, 00 aaa 0000 00:00:00 GMT" // a: a name, checked above; 0: a digit
	if len(s) != len(shape) || !strings.Contains(" Mon Tue Wed Thu Fri Sat Sun ", " "+s[:3]+" ") ||
		!strings.Contains(" Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec ", " "+s[8:11]+" ") {
		return false
	}
	for i := 0; i < len(shape); i++ {
		switch shape[i] {
		case 'a':
		case '0':
			if !isDigit(s[i]) {
				return false
			}
		default:
			if s[i] != shape[i] {
				return false
			}
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseUint parses a string of ASCII digits; a value above maxSeconds saturates there.
func parseUint(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n <= maxSeconds {
			n = n*10 + int64(c-'0')
		}
	}
	return min(n, maxSeconds), true
}

// ParseRateLimit reads the IETF RateLimit header field (draft-ietf-httpapi-ratelimit-headers,
// a Structured Field List of RFC 9651: quota policies such as `"default";r=0;t=30`, where r
// is the quota units left and t the seconds until more come) and returns the wait it
// implies: the largest t among the policies with r=0. ok is false when no policy is
// exhausted with a t, or when the value is not a valid List, which the draft says to
// ignore whole; a member whose r or t is not a non-negative Integer is skipped. Several
// field lines may be joined with commas. A parsed wait is never negative and saturates at
// about 292 years; ParseRateLimit is safe for concurrent use.
//
// The Transport reads the field beside Retry-After and the other rate-limit headers, and
// waits the longest that any of them asks (see the package documentation).
func ParseRateLimit(value string) (wait time.Duration, ok bool) {
	l := sfList{s: value}
	for m, more := l.next(); more; m, more = l.next() {
		r, valid := rateLimitReading(m)
		if _, hasReset := sfParam(m.params, "t"); valid && hasReset && r.Remaining == 0 {
			wait, ok = max(wait, r.Reset), true
		}
	}
	if l.bad {
		return 0, false
	}
	return wait, ok
}
