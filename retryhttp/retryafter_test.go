package retryhttp_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/retrykit/retry/retryhttp"
	"pgregory.net/rapid"
)

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func TestParseRetryAfter(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"120", 120 * time.Second, true},
		{" 7\t", 7 * time.Second, true},
		{"0", 0, true},
		{"007", 7 * time.Second, true},
		{"9223372036", 9223372036 * time.Second, true},                          // the largest a Duration holds
		{"9223372037", time.Duration(9223372036) * time.Second, true},           // saturates: "not for a very long time"
		{"99999999999999999999", time.Duration(9223372036) * time.Second, true}, // 20 digits, saturates
		{"", 0, false},
		{"-1", 0, false},
		{"+5", 0, false},
		{"1.5", 0, false}, // a fraction: malformed (RFC 9110 section 10.2.3; SPEC R4.3; the contract suite's retry_after_garbage_frac)
		{"0.001", 0, false},
		{" 2.25\t", 0, false},
		{"007.50", 0, false},
		{".5", 0, false},
		{"1.", 0, false},
		{"1.5.2", 0, false},
		{"1,5", 0, false},
		{"1.5s", 0, false},
		{"1e3", 0, false},
		{"abc", 0, false},
		{"5 s", 0, false},
		{"Sun, 29 Nov 2026 12:00:30 GMT", 30 * time.Second, true},                        // IMF-fixdate
		{"Sunday, 29-Nov-26 12:01:00 GMT", time.Minute, true},                            // RFC 850
		{"Sun Nov 29 12:00:05 2026", 5 * time.Second, true},                              // asctime
		{"Sun, 29 Nov 26 12:00:30 GMT", 0, false},                                        // IMF-fixdate with a 2-digit year
		{"Sun, 29 Nov 2026 12:00:00 GMT", 0, false},                                      // now: not in the future
		{"Sun, 29 Nov 2026 11:59:59 GMT", 0, false},                                      // the past
		{"Thu, 01 Jan 1970 00:00:00 GMT", 0, false},                                      // far past
		{"Sunday, 06-Nov-94 08:49:37 GMT", 0, false},                                     // 1994
		{"Fri, 31 Dec 9999 23:59:59 GMT", time.Duration(9223372036) * time.Second, true}, // beyond a Duration: saturates
		{"Sun, 29 Nov 2026 12:00:30 PST", 0, false},                                      // not GMT
	}
	for _, c := range cases {
		got, ok := retryhttp.ParseRetryAfter(c.in, now)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestParseRateLimit(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{`"default";r=0;t=30`, 30 * time.Second, true},
		{`"default";r=5;t=30`, 0, false},
		{`"burst";r=0;t=2, "daily";r=0;t=3600`, time.Hour, true},
		{`"burst";r=3;t=2, "daily";r=0;t=60`, time.Minute, true},
		{`"default";t=30`, 0, false},
		{`"default";r=0`, 0, false},
		{`"default";r=0;t=-5`, 0, false},
		{`"default";r=0;t=999999999999999`, time.Duration(9223372036) * time.Second, true}, // 15 digits: saturates
		{`"default";r=0;t=0`, 0, true},
		{`default;r=0;t=30`, 30 * time.Second, true}, // a Token names a policy too
		{` "a";r=0;t=5 ,  "b";r=0;t=6`, 6 * time.Second, true},
		{`"a";r=0;t=5;pk=:cHsdsRa894==:;acme-burst=?1`, 5 * time.Second, true},
		{`"a";r=0;t=5;t=9`, 9 * time.Second, true}, // the last parameter of a name wins (RFC 9651)
		// Malformed fields are ignored whole (draft-ietf-httpapi-ratelimit-headers, RFC 9651
		// section 4.2): issue 32 item 2.
		{`"default";r=0;t=99999999999999999999`, 0, false}, // 20 digits: not an Integer
		{`"a";r=0;t=5, `, 0, false},                        // a trailing comma
		{`"a";r=0;t=5 "b"`, 0, false},
		{`"a;r=0;t=5`, 0, false},  // no closing quote
		{`"a";R=0;t=5`, 0, false}, // keys are lower case
		// A member that is not a policy with a non-negative Integer r and t is skipped.
		{`"a";r=0;t=1.5`, 0, false},
		{`"a";r=0;t="5"`, 0, false},
		{`5;r=0;t=5`, 0, false},
		{`"a";r=0;t=5, "b";r=-1;t=9`, 5 * time.Second, true},
		{`("a" "b");r=0;t=5`, 0, false}, // an inner list names no policy
		{`garbage`, 0, false},
		{``, 0, false},
	}
	for _, c := range cases {
		got, ok := retryhttp.ParseRateLimit(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseRateLimit(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestRetryAfterSecondsProperty: every delay-seconds a Duration holds parses to itself, with
// or without leading zeros, and an HTTP-date n seconds ahead parses to n seconds.
func TestRetryAfterSecondsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(0, 9223372036).Draw(t, "n")
		zeros := rapid.IntRange(0, 3).Draw(t, "zeros")
		s := strconv.FormatInt(n, 10)
		for range zeros {
			s = "0" + s
		}
		if got, ok := retryhttp.ParseRetryAfter(s, now); !ok || got != time.Duration(n)*time.Second {
			t.Fatalf("ParseRetryAfter(%q) = %v, %v", s, got, ok)
		}
		ahead := rapid.Int64Range(1, 100*365*24*3600).Draw(t, "ahead")
		date := now.Add(time.Duration(ahead) * time.Second).Format(http.TimeFormat)
		if got, ok := retryhttp.ParseRetryAfter(date, now); !ok || got != time.Duration(ahead)*time.Second {
			t.Fatalf("ParseRetryAfter(%q) = %v, %v; want %ds", date, got, ok, ahead)
		}
	})
}

// A decimal number of seconds is malformed (RFC 9110 allows whole seconds only; SPEC R4.3:
// the backoff applies), whatever its digits: the SDKs of OpenAI and Anthropic read it, but
// the command line's contract suite pins it as garbage (issue 32 item 7, a question of the
// closing note).
func TestRetryAfterDecimalProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ms := rapid.Int64Range(0, 9_000_000_000_000).Draw(t, "ms")
		s := strconv.FormatInt(ms/1000, 10) + "." + fmt.Sprintf("%03d", ms%1000)[:rapid.IntRange(1, 3).Draw(t, "digits")]
		if got, ok := retryhttp.ParseRetryAfter(s, now); ok || got != 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v, %v; want malformed", s, got, ok)
		}
	})
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0", "-1", "1.5", "99999999999999999999", "Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Fri, 31 Dec 9999 23:59:59 GMT", ""} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, value string, unix int64) {
		at := time.Unix(unix%(1<<40), 0)
		if d, ok := retryhttp.ParseRetryAfter(value, at); d < 0 || !ok && d != 0 {
			t.Fatalf("ParseRetryAfter(%q, %v) = %v, %v", value, at, d, ok)
		}
	})
}

func FuzzParseRateLimit(f *testing.F) {
	for _, s := range []string{`"default";r=0;t=30`, `a;r=0;t=1, b;r=0;t=99999999999`, `;;;==,`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		if d, ok := retryhttp.ParseRateLimit(value); d < 0 || !ok && d != 0 {
			t.Fatalf("ParseRateLimit(%q) = %v, %v", value, d, ok)
		}
	})
}
