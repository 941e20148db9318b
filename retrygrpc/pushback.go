package retrygrpc

import (
	"log/slog"
	"math"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// PushbackTrailer is the trailer by which a server asks for a wait before the next attempt,
// in whole milliseconds, or asks the client not to retry at all (gRFC A6, "Pushback"): its
// value is a signed 32-bit integer in decimal without unnecessary leading zeros; a negative
// value, one that is not of that form, or more than one value asks not to retry.
const PushbackTrailer = "grpc-retry-pushback-ms"

// The sources of a server's wait, as the decision record's retry_after_from names them.
const (
	fromPushbackTrailer = PushbackTrailer
	fromRetryInfo       = "retry-info"
)

// pushback is what a server asked of the next attempt.
type pushback struct {
	wait    time.Duration
	from    string // where wait came from: fromPushbackTrailer or fromRetryInfo
	has     bool   // the server asked for a wait
	noRetry bool   // the server asked not to retry (negative or malformed pushback)
	// why names, for the record, what asked not to retry: the trailer's value
	// (keyPushback) or the RetryInfo detail (keyRetryInfoDelay).
	why slog.Attr
}

// serverPushback reads the server's requested wait from the trailer (PushbackTrailer) and
// from a google.rpc.RetryInfo detail of st (its retry_delay), treated alike, as Retry-After
// is for HTTP (SPEC R4): when both ask, the longer wait wins; when either is negative or
// malformed, the server asked not to retry. A RetryInfo without retry_delay asks nothing.
func serverPushback(trailer metadata.MD, st *status.Status) pushback {
	var p pushback
	if values := trailer.Get(PushbackTrailer); len(values) > 0 {
		ms, ok := parsePushback(values[0])
		if len(values) > 1 || !ok || ms < 0 {
			return pushback{noRetry: true, why: slog.String(keyPushback, pushbackForRecord(values))}
		}
		p.wait, p.from, p.has = time.Duration(ms)*time.Millisecond, fromPushbackTrailer, true
	}
	if st == nil {
		return p
	}
	for _, detail := range st.Proto().GetDetails() {
		info := new(errdetails.RetryInfo)
		if !detail.MessageIs(info) {
			continue
		}
		if detail.UnmarshalTo(info) != nil {
			return pushback{noRetry: true, why: slog.String(keyRetryInfoDelay, "invalid")}
		}
		delay := info.GetRetryDelay()
		if delay == nil {
			continue
		}
		if delay.CheckValid() != nil {
			return pushback{noRetry: true, why: slog.String(keyRetryInfoDelay, "invalid")}
		}
		if delay.AsDuration() < 0 {
			return pushback{noRetry: true, why: slog.String(keyRetryInfoDelay, "negative")}
		}
		if d := delay.AsDuration(); !p.has || d > p.wait {
			p.wait, p.from, p.has = d, fromRetryInfo, true
		}
	}
	return p
}

// parsePushback parses a grpc-retry-pushback-ms value as gRFC A6 writes it: an ASCII signed
// 32-bit integer in decimal with no unnecessary leading zeros ("0", "250", "-1"; not "007",
// "+5", "-0", " 5" or "2147483648"). ok is false for anything else.
func parsePushback(s string) (ms int32, ok bool) {
	digits, negative := strings.CutPrefix(s, "-")
	if digits == "" || len(digits) > 10 || digits[0] == '0' && (len(digits) > 1 || negative) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if negative {
		n = -n
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

// pushbackForRecord is what the record shows of a pushback that asks not to retry: its
// values as sent, joined by ",", when each is short and made of digits, signs and dots only
// (so no secret can hide in it: records never hold a header's free text); "malformed"
// otherwise.
func pushbackForRecord(values []string) string {
	for _, v := range values {
		if len(v) > 24 || strings.Trim(v, "0123456789+-.") != "" {
			return "malformed"
		}
	}
	return strings.Join(values, ",")
}
