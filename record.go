package retry

import (
	"encoding/json"
	"iter"
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"
)

// The record's own fields, in the order Fields yields them (the operation's labels come right
// after attempt). Their names are pinned: logs, the command line and tests outside this module
// read them.
const (
	keyAttempt          = "attempt"
	keyStatus           = "status"
	keyError            = "error"
	keyElapsed          = "elapsed_ms"
	keyRemaining        = "remaining_ms"
	keyRetryAfter       = "retry_after_ms"
	keyRetryAfterFrom   = "retry_after_from"
	keyWait             = "wait_ms"
	keyDecision         = "decision"
	keyReason           = "reason"
	keyOutcome          = "outcome"
	keyNested           = "nested"
	keyNoAttempt        = "no_attempt"
	keyTransportResends = "transport_resends"
	keyHedge            = "hedge"
	keyWinner           = "winner"
	keyHedgeRefused     = "hedge_refused"
	keyThrottled        = "throttled"
	keyGateWait         = "gate_wait_ms"
)

// ownField reports whether key names one of the record's own fields.
func ownField(key string) bool {
	switch key {
	case keyAttempt, keyStatus, keyError, keyElapsed, keyRemaining, keyRetryAfter, keyRetryAfterFrom,
		keyWait, keyDecision, keyReason, keyOutcome, keyNested, keyNoAttempt, keyTransportResends,
		keyHedge, keyWinner, keyHedgeRefused, keyThrottled, keyGateWait:
		return true
	}
	return false
}

// Fields returns d's decision record, field by field: attempt (1-based); the attributes
// that name the operation (for HTTP, method and url); status; error; elapsed_ms;
// remaining_ms (with a deadline); retry_after_ms and retry_after_from (with a server wait);
// wait_ms (on a retry); decision ("retry" or "stop") and reason, left out of a Lost
// attempt's record; outcome ("success", "failure" or "unknown"); throttled, nested,
// no_attempt (when true); transport_resends, gate_wait_ms (when not 0); hedge (when true); winner (true or false, in a
// hedged round only); hedge_refused (when a hedge was refused); then every other attribute
// added to d, in order. A field without a value is left out. Times are
// milliseconds, to the microsecond, as float64 values.
//
// The record never holds a header value, a body or a credential of its own: error and the
// attributes come from the code around the loop as given (package retryhttp redacts them).
func (d *Decision) Fields() iter.Seq[slog.Attr] {
	return func(yield func(slog.Attr) bool) {
		if !yield(slog.Int(keyAttempt, d.Attempt)) {
			return
		}
		n := d.NumAttrs()
		for i := range min(d.labels, n) {
			if !yield(d.attr(i)) {
				return
			}
		}
		if !d.ownFields(yield) {
			return
		}
		for i := d.labels; i < n; i++ {
			if !yield(d.attr(i)) {
				return
			}
		}
	}
}

// ownFields yields the record's own fields after attempt and the labels; it reports whether
// yield asked for more.
func (d *Decision) ownFields(yield func(slog.Attr) bool) bool {
	if d.Status != 0 && !yield(slog.Int(keyStatus, d.Status)) {
		return false
	}
	if d.Err != nil && !yield(slog.String(keyError, d.Err.Error())) {
		return false
	}
	if !yield(slog.Float64(keyElapsed, milliseconds(d.Elapsed))) {
		return false
	}
	if d.HasDeadline && !yield(slog.Float64(keyRemaining, milliseconds(d.Remaining))) {
		return false
	}
	if d.HasRetryAfter {
		if !yield(slog.Float64(keyRetryAfter, milliseconds(d.RetryAfter))) {
			return false
		}
		if d.RetryAfterFrom != "" && !yield(slog.String(keyRetryAfterFrom, d.RetryAfterFrom)) {
			return false
		}
	}
	decision := "stop"
	if d.Retry {
		decision = "retry"
		if !yield(slog.Float64(keyWait, milliseconds(d.Wait))) {
			return false
		}
	}
	if !d.Lost && (!yield(slog.String(keyDecision, decision)) || !yield(slog.String(keyReason, string(d.Reason)))) {
		return false
	}
	if !yield(slog.String(keyOutcome, d.Outcome())) {
		return false
	}
	if d.Throttled && !yield(slog.Bool(keyThrottled, true)) {
		return false
	}
	if d.Nested && !yield(slog.Bool(keyNested, true)) {
		return false
	}
	if d.NoAttempt && !yield(slog.Bool(keyNoAttempt, true)) {
		return false
	}
	if d.TransportResends != 0 && !yield(slog.Int(keyTransportResends, d.TransportResends)) {
		return false
	}
	if d.GateWait != 0 && !yield(slog.Float64(keyGateWait, milliseconds(d.GateWait))) {
		return false
	}
	return d.hedgeFields(yield)
}

// hedgeFields yields the record's fields of hedging; it reports whether yield asked for more.
func (d *Decision) hedgeFields(yield func(slog.Attr) bool) bool {
	if d.Hedge && !yield(slog.Bool(keyHedge, true)) {
		return false
	}
	if (d.Winner || d.Lost || d.inHedgedRound) && !yield(slog.Bool(keyWinner, d.Winner)) {
		return false
	}
	return d.HedgeRefused == 0 || yield(slog.String(keyHedgeRefused, d.HedgeRefused.String()))
}

// Outcome returns "success" for a confirmed success, "unknown" for an outcome that may have
// taken effect and "failure" for everything else.
func (d *Decision) Outcome() string {
	switch d.Class {
	case ClassSuccess:
		return "success"
	case ClassUnknown:
		return "unknown"
	}
	return "failure"
}

// AppendJSON appends d's record (see [Decision.Fields]) to b as one JSON object, without a
// newline and without HTML escaping (a URL's & stays &). Strings, numbers and booleans are
// written as such; a time.Duration in milliseconds, a time.Time in RFC 3339, a group as an
// object, and any other value as encoding/json writes it.
func (d *Decision) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	for a := range d.Fields() {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONAttr(b, a)
	}
	return append(b, '}')
}

// MarshalJSON writes d's record as [Decision.AppendJSON] does. encoding/json's Marshal escapes
// HTML in what this returns; AppendJSON does not.
func (d Decision) MarshalJSON() ([]byte, error) {
	return d.AppendJSON(make([]byte, 0, 256)), nil
}

// LogValue implements slog.LogValuer: a group of the decision record's fields, in order.
func (d Decision) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, 16)
	for a := range d.Fields() {
		attrs = append(attrs, a)
	}
	return slog.GroupValue(attrs...)
}

// appendJSONAttr appends "key":value.
func appendJSONAttr(b []byte, a slog.Attr) []byte {
	b = appendJSONString(b, a.Key)
	b = append(b, ':')
	return appendJSONValue(b, a.Value)
}

func appendJSONValue(b []byte, v slog.Value) []byte {
	switch v = v.Resolve(); v.Kind() {
	case slog.KindString:
		return appendJSONString(b, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindFloat64:
		return strconv.AppendFloat(b, v.Float64(), 'f', -1, 64)
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool())
	case slog.KindDuration:
		return strconv.AppendFloat(b, milliseconds(v.Duration()), 'f', -1, 64)
	case slog.KindTime:
		return appendJSONString(b, v.Time().Format(time.RFC3339Nano))
	case slog.KindGroup:
		b = append(b, '{')
		for i, a := range v.Group() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONAttr(b, a)
		}
		return append(b, '}')
	}
	j, err := json.Marshal(v.Any())
	if err != nil {
		return appendJSONString(b, "!ERROR: "+err.Error())
	}
	return append(b, j...)
}

// appendJSONString appends s as a JSON string: quotes, backslashes and control characters
// escaped, invalid UTF-8 replaced by U+FFFD, nothing else escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// milliseconds returns d in milliseconds, to the microsecond.
func milliseconds(d time.Duration) float64 {
	return float64(d.Round(time.Microsecond)) / float64(time.Millisecond)
}
