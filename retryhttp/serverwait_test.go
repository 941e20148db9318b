package retryhttp

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The parsers of the server waits the LLM APIs send (issue 22 items 1 and 4), and the rule
// that picks the longest (issue 32 item 7).

var at = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

const longest = time.Duration(math.MaxInt64)

func TestParseMilliseconds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1500", 1500 * time.Millisecond, true},
		{" 20000\t", 20 * time.Second, true},
		{"0", 0, true},
		{"007", 7 * time.Millisecond, true},
		{"1500.5", 1500*time.Millisecond + 500*time.Microsecond, true},
		{"0.000001", time.Nanosecond, true},
		{"0.0000001", 0, true}, // below a nanosecond
		{"9223372036854", 9223372036854 * time.Millisecond, true},
		{"9223372036855", longest, true}, // saturates
		{"99999999999999999999999", longest, true},
		{"", 0, false},
		{"-1", 0, false},
		{"+5", 0, false},
		{"1e3", 0, false},
		{".5", 0, false},
		{"5.", 0, false},
		{"1.2.3", 0, false},
		{"NaN", 0, false},
		{"Inf", 0, false},
		{"1500ms", 0, false},
		{"0x10", 0, false},
	} {
		if got, ok := parseMilliseconds(c.in); got != c.want || ok != c.ok {
			t.Errorf("parseMilliseconds(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestParseGoDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1s", time.Second, true},
		{"6m0s", 6 * time.Minute, true},
		{"12ms", 12 * time.Millisecond, true},
		{"2m59.56s", 2*time.Minute + 59560*time.Millisecond, true},
		{"1h2m3.000000004s", time.Hour + 2*time.Minute + 3*time.Second + 4, true},
		{"1.5µs", 1500, true},
		{"1.5μs", 1500, true}, // the Greek mu
		{"1.5us", 1500, true},
		{"7ns", 7, true},
		{"0s", 0, true},
		{" 1s ", time.Second, true},
		{"2562047h47m16.854775807s", longest, true},
		{"2562048h", longest, true},   // saturates, where time.ParseDuration fails
		{"1h1h", 2 * time.Hour, true}, // as time.ParseDuration
		{"9999999999999999999h", longest, true},
		{"", 0, false},
		{"0", 0, false},
		{"1", 0, false},
		{"-1s", 0, false},
		{"+1s", 0, false},
		{".5s", 0, false},
		{"1.s", 0, false},
		{"1d", 0, false},
		{"1 s", 0, false},
		{"1S", 0, false},
		{"s", 0, false},
	} {
		if got, ok := parseGoDuration(c.in); got != c.want || ok != c.ok {
			t.Errorf("parseGoDuration(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestParseResetTime(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"2026-11-29T12:00:30Z", 30 * time.Second, true},
		{"2026-11-29T12:00:00.25Z", 250 * time.Millisecond, true},
		{"2026-11-29T13:00:30+01:00", 30 * time.Second, true},
		{"2026-11-29T12:00:00Z", 0, false}, // now: not in the future
		{"2026-11-29T11:59:59Z", 0, false}, // the past
		{"2026-11-29 12:00:30Z", 0, false}, // not RFC 3339
		{"2026-11-29T12:00:30", 0, false},  // no offset
		{"Sun, 29 Nov 2026 12:00:30 GMT", 0, false},
		{"30", 0, false},
		{"", 0, false},
	} {
		if got, ok := parseResetTime(c.in, at); got != c.want || ok != c.ok {
			t.Errorf("parseResetTime(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// Every number of milliseconds a Duration holds, and every such number with a fraction of up
// to 6 digits, parses to itself.
func TestParseMillisecondsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(0, math.MaxInt64/int64(time.Millisecond)-1).Draw(t, "ms")
		digits := rapid.IntRange(0, 6).Draw(t, "fractionDigits")
		s, want := strconv.FormatInt(n, 10), time.Duration(n)*time.Millisecond
		if digits > 0 {
			f := rapid.Int64Range(0, int64(math.Pow10(digits))-1).Draw(t, "fraction")
			s += "." + strings.Repeat("0", digits-len(strconv.FormatInt(f, 10))) + strconv.FormatInt(f, 10)
			want += time.Duration(f * int64(math.Pow10(6-digits)))
		}
		if got, ok := parseMilliseconds(s); !ok || got != want {
			t.Fatalf("parseMilliseconds(%q) = %v, %v; want %v", s, got, ok, want)
		}
	})
}

// Every non-negative Duration, as Duration.String writes it, parses to itself.
func TestParseGoDurationProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := time.Duration(rapid.Int64Range(0, math.MaxInt64).Draw(t, "d"))
		if rapid.Bool().Draw(t, "short") {
			d %= time.Duration(rapid.SampledFrom([]int64{int64(time.Microsecond), int64(time.Second), int64(time.Hour)}).Draw(t, "within"))
		}
		if got, ok := parseGoDuration(d.String()); !ok || got != d {
			t.Fatalf("parseGoDuration(%q) = %v, %v; want %v", d.String(), got, ok, d)
		}
	})
}

// A reset d after the server's now, written in RFC 3339 to the nanosecond, is a wait of d.
func TestParseResetTimeProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := time.Duration(rapid.Int64Range(1, int64(100*365*24*time.Hour)).Draw(t, "d"))
		if got, ok := parseResetTime(at.Add(d).Format(time.RFC3339Nano), at); !ok || got != d {
			t.Fatalf("reset %v ahead = %v, %v", d, got, ok)
		}
	})
}

// waitValue draws a value for a header of the retry-after family, valid or not, and the
// wait it asks for (ok false when it asks for none).
func waitValue(t *rapid.T, millis bool, name string) (string, time.Duration, bool) {
	switch rapid.IntRange(0, 4).Draw(t, name+"Kind") {
	case 0:
		return rapid.SampledFrom([]string{"", "soon", "-1", "1e3", "+5", ".5", "1."}).Draw(t, name+"Malformed"), 0, false
	case 1:
		s := rapid.Int64Range(1, 3600).Draw(t, name+"Date")
		return at.Add(time.Duration(s) * time.Second).Format(http.TimeFormat), time.Duration(s) * time.Second, !millis
	case 2: // a decimal number: milliseconds with a fraction (issue 32 item 7); seconds with one are malformed
		n := rapid.Int64Range(0, 100000).Draw(t, name+"Decimal")
		if millis {
			return fmt.Sprintf("%d.5", n), time.Duration(n)*time.Millisecond + 500*time.Microsecond, true
		}
		return fmt.Sprintf("%d.%03d", n/1000, n%1000), 0, false // Retry-After takes whole seconds
	}
	n := rapid.Int64Range(0, 100000).Draw(t, name+"Number")
	if millis {
		return strconv.FormatInt(n, 10), time.Duration(n) * time.Millisecond, true
	}
	return strconv.FormatInt(n/1000, 10), time.Duration(n/1000) * time.Second, true
}

// resetValue writes a reset d after the server's now (at) in q's form.
func resetValue(t *rapid.T, q splitQuota, d time.Duration) string {
	switch q.reset {
	case resetGoDuration:
		return d.String()
	case resetRFC3339:
		return at.Add(d).Format(time.RFC3339Nano)
	}
	if rapid.Bool().Draw(t, q.names[fieldReset]+"Unix") {
		return fmt.Sprintf("%d.%03d", at.Add(d).Unix(), d%time.Second/time.Millisecond)
	}
	return fmt.Sprintf("%d.%03d", d/time.Second, d%time.Second/time.Millisecond)
}

// The one rule of a response's wait (issue 32 item 7): the longest of every wait its headers
// ask, whatever the status, named by its header: the retry-after family's, each that is
// valid; the reset of each quota at 0 (OpenAI's, Anthropic's, the older RateLimit-* and
// X-RateLimit-*); the IETF RateLimit field's t of a policy at r=0. A malformed value asks
// for nothing and shortens nothing. On a tie, the first in that order.
func TestServerWaitProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := http.Header{"Date": {at.Format(http.TimeFormat)}}
		var want time.Duration
		wantFrom := ""
		longer := func(d time.Duration, from string) {
			if wantFrom == "" || d > want {
				want, wantFrom = d, from
			}
		}
		for _, w := range waitHeaders {
			if !rapid.Bool().Draw(t, w.from) {
				continue
			}
			v, d, valid := waitValue(t, w.millis, w.from)
			h.Set(w.key, v)
			if valid {
				longer(d, w.from)
			}
		}
		for _, q := range splitQuotas {
			if !rapid.Bool().Draw(t, q.names[fieldReset]) {
				continue
			}
			left := rapid.SampledFrom([]string{"0", "1", "x"}).Draw(t, q.names[fieldRemaining])
			d := time.Duration(rapid.Int64Range(1, 600000).Draw(t, q.names[fieldReset]+"Ms")) * time.Millisecond
			h.Set(q.keys[fieldRemaining], left)
			h.Set(q.keys[fieldReset], resetValue(t, q, d))
			if left == "0" {
				longer(d, q.names[fieldReset])
			}
		}
		if rapid.Bool().Draw(t, "ratelimit") {
			left := rapid.IntRange(0, 1).Draw(t, "r")
			reset := rapid.IntRange(0, 600).Draw(t, "t")
			h.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%d`, left, reset))
			if left == 0 && reset > 0 {
				longer(time.Duration(reset)*time.Second, fromRateLimit)
			}
		}
		received := at.Add(time.Hour) // the Date, not the local clock, is now
		got, from, ok := serverWait(h, readLimits(h, received, nil), received)
		if got != want || from != wantFrom || ok != (wantFrom != "") {
			t.Fatalf("serverWait(%v) = %v, %q, %v; want %v, %q", h, got, from, ok, want, wantFrom)
		}
	})
}

// names are the sources serverWait may name.
var names = func() []string {
	n := []string{fromRateLimit}
	for _, w := range waitHeaders {
		n = append(n, w.from)
	}
	for _, q := range splitQuotas {
		n = append(n, q.names[:]...)
	}
	return n
}()

func FuzzParseMilliseconds(f *testing.F) {
	for _, s := range []string{"1500", "0", "1500.5", "-1", "1e3", "99999999999999999999999", ".5", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := parseMilliseconds(v)
		if d < 0 || !ok && d != 0 {
			t.Fatalf("parseMilliseconds(%q) = %v, %v", v, d, ok)
		}
		if f, err := strconv.ParseFloat(strings.Trim(v, " \t"), 64); ok && err == nil && f < 9e12 {
			if diff := float64(d) - f*float64(time.Millisecond); math.Abs(diff) > 1+f*1e-9 {
				t.Fatalf("parseMilliseconds(%q) = %v; the SDKs read %v ms", v, d, f)
			}
		}
	})
}

// parseGoDuration reads what time.ParseDuration reads, without a sign or a bare number, to
// the same nanosecond, and saturates where it overflows.
func FuzzParseGoDuration(f *testing.F) {
	for _, s := range []string{"1s", "6m0s", "12ms", "2m59.56s", "1.5µs", "-1s", "0", "9999999999999999999h", ".5s", "1h1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := parseGoDuration(v)
		if d < 0 || !ok && d != 0 {
			t.Fatalf("parseGoDuration(%q) = %v, %v", v, d, ok)
		}
		std, err := time.ParseDuration(strings.Trim(v, " \t"))
		if ok && err == nil && std != d {
			t.Fatalf("parseGoDuration(%q) = %v; time.ParseDuration says %v", v, d, std)
		}
	})
}

func FuzzParseResetTime(f *testing.F) {
	for _, s := range []string{"2026-11-29T12:00:30Z", "2026-11-29T12:00:00.25Z", "9999-12-31T23:59:59Z", "x", ""} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, v string, unix int64) {
		now := time.Unix(unix%(1<<40), 0)
		if d, ok := parseResetTime(v, now); d < 0 || ok && d == 0 || !ok && d != 0 {
			t.Fatalf("parseResetTime(%q, %v) = %v, %v", v, now, d, ok)
		}
	})
}

// Whatever the headers, serverWait returns a wait that is never negative, and names its
// source exactly when it has one.
func FuzzServerWait(f *testing.F) {
	f.Add("1500", "", "2", "0", "6m0s", "0", "2026-11-29T12:00:30Z", `"default";r=0;t=30`, "0", "1764417630")
	f.Add("", "x", "Sun, 29 Nov 2026 12:00:30 GMT", "1", "1s", "", "", "", "1", "2.5")
	f.Add("", "", "1.5", "", "", "", "", `"a";r=0;t=3, "b";r=1`, "", "")
	f.Fuzz(func(t *testing.T, ms, msAzure, retryAfter, openAILeft, openAIReset, anthropicLeft, anthropicReset, rateLimit, left, reset string) {
		h := http.Header{"Date": {at.Format(http.TimeFormat)}}
		for k, v := range map[string]string{"Retry-After-Ms": ms, "X-Ms-Retry-After-Ms": msAzure, "Retry-After": retryAfter,
			"X-Ratelimit-Remaining-Tokens": openAILeft, "X-Ratelimit-Reset-Tokens": openAIReset,
			"Anthropic-Ratelimit-Tokens-Remaining": anthropicLeft, "Anthropic-Ratelimit-Tokens-Reset": anthropicReset,
			"Ratelimit": rateLimit, "X-Ratelimit-Remaining": left, "X-Ratelimit-Reset": reset} {
			if v != "" {
				h.Set(k, v)
			}
		}
		d, from, ok := serverWait(h, readLimits(h, at, nil), at)
		if d < 0 || ok != (from != "") || ok && !slices.Contains(names, from) || !ok && d != 0 {
			t.Fatalf("serverWait(%v) = %v, %q, %v", h, d, from, ok)
		}
	})
}
