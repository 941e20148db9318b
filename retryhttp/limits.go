package retryhttp

import (
	"net/http"
	"strings"
	"time"

	"github.com/retrykit/retry/ratelimit"
)

// limitsOnStack is the size of a buffer for readLimits that covers every response of the
// APIs we know (Anthropic's 4 quotas, or OpenAI's 2 beside a RateLimit field) without
// growing: 8 Readings, 512 bytes.
const limitsOnStack = 8

// resetForm is how a quota's reset header writes the time the quota comes back.
type resetForm uint8

const (
	resetGoDuration    resetForm = iota // a Go duration after now: OpenAI's "6m0s" (see parseGoDuration)
	resetRFC3339                        // a time: Anthropic's "2026-11-29T12:00:30Z" (see parseResetTime)
	resetSecondsOrUnix                  // seconds to wait or a Unix time (see parseResetSeconds)
)

// The fields of a quota that come in headers of their own, as indexes of splitQuota.keys.
const (
	fieldLimit = iota
	fieldRemaining
	fieldReset
	fieldCount
)

// splitQuota is a quota whose size, what is left of it and its reset come in headers of
// their own.
type splitQuota struct {
	quota string             // ratelimit.Reading.Quota
	keys  [fieldCount]string // the limit, remaining and reset headers, as net/http stores their names
	names [fieldCount]string // the same in lower case: ratelimit.Reading.From
	reset resetForm
}

// splitQuotas are the quotas whose headers readLimits reads, in the order of its Readings:
//   - OpenAI's (https://platform.openai.com/docs/guides/rate-limits):
//     x-ratelimit-{limit,remaining,reset}-{requests,tokens}, the reset a Go duration;
//   - Anthropic's (https://docs.anthropic.com/en/api/rate-limits):
//     anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset},
//     the reset an RFC 3339 time;
//   - the older RateLimit-Limit/-Remaining/-Reset (draft-ietf-httpapi-ratelimit-headers up
//     to -06) and X-RateLimit-Limit/-Remaining/-Reset (GitHub, Discord, and many more), a
//     quota of requests whose reset is seconds to wait or a Unix time.
var splitQuotas = [...]splitQuota{
	newSplitQuota("requests", resetGoDuration, "X-Ratelimit-Limit-Requests", "X-Ratelimit-Remaining-Requests", "X-Ratelimit-Reset-Requests"),
	newSplitQuota("tokens", resetGoDuration, "X-Ratelimit-Limit-Tokens", "X-Ratelimit-Remaining-Tokens", "X-Ratelimit-Reset-Tokens"),
	newSplitQuota("requests", resetRFC3339, "Anthropic-Ratelimit-Requests-Limit", "Anthropic-Ratelimit-Requests-Remaining", "Anthropic-Ratelimit-Requests-Reset"),
	newSplitQuota("tokens", resetRFC3339, "Anthropic-Ratelimit-Tokens-Limit", "Anthropic-Ratelimit-Tokens-Remaining", "Anthropic-Ratelimit-Tokens-Reset"),
	newSplitQuota("input-tokens", resetRFC3339, "Anthropic-Ratelimit-Input-Tokens-Limit", "Anthropic-Ratelimit-Input-Tokens-Remaining", "Anthropic-Ratelimit-Input-Tokens-Reset"),
	newSplitQuota("output-tokens", resetRFC3339, "Anthropic-Ratelimit-Output-Tokens-Limit", "Anthropic-Ratelimit-Output-Tokens-Remaining", "Anthropic-Ratelimit-Output-Tokens-Reset"),
	newSplitQuota("requests", resetSecondsOrUnix, "Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset"),
	newSplitQuota("requests", resetSecondsOrUnix, "X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset"),
}

func newSplitQuota(quota string, reset resetForm, limit, remaining, resetKey string) splitQuota {
	q := splitQuota{quota: quota, keys: [fieldCount]string{limit, remaining, resetKey}, reset: reset}
	for i, k := range q.keys {
		q.names[i] = strings.ToLower(k)
	}
	return q
}

// splitKeys maps the key of each header of splitQuotas to where readLimits keeps its value:
// the quota's index times fieldCount, plus the field.
var splitKeys = func() map[string]int {
	m := make(map[string]int, len(splitQuotas)*fieldCount)
	for i, q := range splitQuotas {
		for f, k := range q.keys {
			m[k] = i*fieldCount + f
		}
	}
	return m
}()

// readLimits appends to buf what the header h of a response received at received says of
// the destination's quotas, one ratelimit.Reading per quota, and returns the extended
// slice, as the strconv.Append functions do. It reads, in one pass over h:
//   - the quotas of splitQuotas, in that order: one Reading for each quota with at least
//     one of its headers valid (a count of digits; a reset in its form), whose From names
//     the reset header when it gave one, else the remaining header, else the limit header;
//   - then the IETF fields (draft-ietf-httpapi-ratelimit-headers, Structured Field Lists
//     of RFC 9651): one Reading per policy RateLimit names (Remaining its r, Reset its t,
//     From "ratelimit"), with Limit and Window from the RateLimit-Policy member of the same
//     name (its q and w); and one per policy only RateLimit-Policy names (Remaining -1,
//     From "ratelimit-policy"). A field that is not a valid List is ignored whole, as the
//     draft requires; so is a member without a name (a String or a Token) or with an r, t,
//     q or w that is not a non-negative Integer (w positive), and a policy whose quota unit
//     (qu) is not "requests".
//
// A reset written as a time (Anthropic's, or a Unix time) is counted from the response's
// Date when valid, the server's clock, else from received; one not in the future says
// nothing (Reset 0). A response with none of these headers costs one pass over h and no
// allocation; with a buffer of limitsOnStack Readings, neither does any response of the
// APIs above.
func readLimits(h http.Header, received time.Time, buf []ratelimit.Reading) []ratelimit.Reading {
	var values [len(splitQuotas) * fieldCount]string
	var rateLimit, policy []string
	clock := serverClock{received: received}
	split := false
	for k, v := range h {
		if len(k) == 0 || len(v) == 0 {
			continue
		}
		switch k[0] {
		case 'X', 'A', 'R':
			if !strings.HasPrefix(k, "X-Ratelimit-") && !strings.HasPrefix(k, "Anthropic-Ratelimit-") &&
				!strings.HasPrefix(k, "Ratelimit") {
				continue
			}
			if i, ok := splitKeys[k]; ok {
				values[i], split = v[0], true
			} else if k == "Ratelimit" {
				rateLimit = v
			} else if k == "Ratelimit-Policy" {
				policy = v
			}
		case 'D':
			if k == "Date" {
				clock.date = v[0]
			}
		}
	}
	if split {
		for i := range splitQuotas {
			if r, ok := splitQuotas[i].reading(values[i*fieldCount:(i+1)*fieldCount], &clock); ok {
				buf = append(buf, r)
			}
		}
	}
	if rateLimit != nil || policy != nil {
		buf = appendIETF(buf, rateLimit, policy)
	}
	return buf
}

// reading returns the Reading of q from the values of its headers ("" when absent), and
// false when none of them is valid.
func (q *splitQuota) reading(values []string, clock *serverClock) (r ratelimit.Reading, ok bool) {
	r.Quota, r.Remaining = q.quota, -1
	if n, valid := parseCount(values[fieldLimit]); valid {
		r.Limit, r.From, ok = n, q.names[fieldLimit], true
	}
	if n, valid := parseCount(values[fieldRemaining]); valid {
		r.Remaining, r.From, ok = n, q.names[fieldRemaining], true
	}
	if v := values[fieldReset]; v != "" {
		var d time.Duration
		valid := false
		switch q.reset {
		case resetGoDuration:
			d, valid = parseGoDuration(v)
		case resetRFC3339:
			d, valid = parseResetTime(v, clock.now())
		case resetSecondsOrUnix:
			d, valid = parseResetSeconds(v, clock)
		}
		if valid {
			r.Reset, r.From, ok = d, q.names[fieldReset], true
		}
	}
	return r, ok
}

// parseCount parses a limit or a remaining count: digits, spaces and tabs around them
// ignored, optionally followed by a comma or a semicolon and anything (the older drafts'
// RateLimit-Limit lists its policies after the count: "100, 100;w=60"). A sign or anything
// else is malformed; a count too large for an int64 saturates.
func parseCount(value string) (int64, bool) {
	v := strings.Trim(value, " \t")
	if i := strings.IndexAny(v, ",;"); i >= 0 {
		v = strings.TrimRight(v[:i], " \t")
	}
	if !allDigits(v) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		d := int64(v[i] - '0')
		if n > (1<<63-1-d)/10 {
			return 1<<63 - 1, true
		}
		n = n*10 + d
	}
	return n, true
}

// appendIETF appends the Readings of the IETF RateLimit and RateLimit-Policy fields, given
// their field lines (see readLimits).
func appendIETF(buf []ratelimit.Reading, rateLimit, policy []string) []ratelimit.Reading {
	start := len(buf)
	buf = appendMembers(buf, rateLimit, rateLimitReading)
	named := len(buf)
	buf = appendMembers(buf, policy, policyReading)
	end := named // the policies not merged into a RateLimit Reading move down to end
	for j := named; j < len(buf); j++ {
		p, merged := buf[j], false
		for i := start; i < named; i++ {
			if buf[i].Quota == p.Quota {
				buf[i].Limit, buf[i].Window, merged = p.Limit, p.Window, true
			}
		}
		if !merged {
			buf[end] = p
			end++
		}
	}
	clear(buf[end:])
	return buf[:end]
}

// appendMembers appends the Reading of each member of a List field, given its field lines,
// for which read says ok; or none at all when the lines do not make a List (RFC 9651
// section 4.2: the lines are joined with commas, so an empty line among several is
// malformed).
func appendMembers(buf []ratelimit.Reading, lines []string, read func(sfMember) (ratelimit.Reading, bool)) []ratelimit.Reading {
	start := len(buf)
	for _, line := range lines {
		if len(lines) > 1 && strings.Trim(line, " \t") == "" {
			return buf[:start]
		}
		l := sfList{s: line}
		for m, more := l.next(); more; m, more = l.next() {
			if r, ok := read(m); ok {
				buf = append(buf, r)
			}
		}
		if l.bad {
			clear(buf[start:])
			return buf[:start]
		}
	}
	return buf
}

// rateLimitReading reads a member of the RateLimit field: a named policy, r the quota units
// left (a non-negative Integer, required) and t the seconds until more come (a
// non-negative Integer, optional).
func rateLimitReading(m sfMember) (r ratelimit.Reading, ok bool) {
	left, hasLeft := sfParam(m.params, "r")
	reset, hasReset := sfParam(m.params, "t")
	if !m.named || !hasLeft || !nonNegative(left) || hasReset && !nonNegative(reset) {
		return r, false
	}
	r = ratelimit.Reading{Quota: sfUnescape(m.name), Remaining: left.n, From: fromRateLimit}
	if hasReset {
		r.Reset = seconds(reset.n)
	}
	return r, true
}

// policyReading reads a member of the RateLimit-Policy field: a named policy, q its quota
// (a non-negative Integer, required), w its window in seconds (a positive Integer,
// optional), and qu its quota unit, "requests" when absent; a policy counting another unit
// (content-bytes, concurrent-requests) is skipped.
func policyReading(m sfMember) (r ratelimit.Reading, ok bool) {
	quota, hasQuota := sfParam(m.params, "q")
	window, hasWindow := sfParam(m.params, "w")
	unit, hasUnit := sfParam(m.params, "qu")
	if !m.named || !hasQuota || !nonNegative(quota) || hasWindow && (!nonNegative(window) || window.n == 0) ||
		hasUnit && (unit.kind != sfString || unit.text != "requests") {
		return r, false
	}
	r = ratelimit.Reading{Quota: sfUnescape(m.name), Limit: quota.n, Remaining: -1, From: fromRateLimitPolicy}
	if hasWindow {
		r.Window = seconds(window.n)
	}
	return r, true
}

func nonNegative(b sfBare) bool { return b.kind == sfInteger && b.n >= 0 }

// seconds returns n seconds as a Duration, saturating at about 292 years.
func seconds(n int64) time.Duration { return time.Duration(min(n, maxSeconds)) * time.Second }
