package main

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrykit/retry"
)

// recorder writes decision records to stderr: with --log json, DESIGN's record one a line
// (retry.Decision's AppendJSON); with --log text, the same fields as key=value pairs on a
// line that starts with "retry: ". With --quiet it writes nothing. It is safe for concurrent
// use.
type recorder struct {
	mu    sync.Mutex
	w     io.Writer
	json  bool
	quiet bool
}

func newRecorder(w io.Writer, f *policyFlags) *recorder {
	return &recorder{w: w, json: f.log == "json", quiet: f.quiet}
}

// decision writes d's record, its error in a user's words (inUserWords); it is a
// retry.Observer.
func (r *recorder) decision(_ context.Context, d retry.Decision) {
	if r.quiet {
		return
	}
	d = inUserWords(d)
	var line []byte
	if r.json {
		line = d.AppendJSON(nil)
	} else {
		line = appendTextRecord(nil, &d)
	}
	line = append(line, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w.Write(line)
}

// appendTextRecord appends d's record as "retry: attempt=1 status=503 decision=retry ..."
// with the JSON record's names and order (retry.Decision.Fields), except that what an
// operator reads first, decision, reason, wait and retry_after, comes right before elapsed.
// A time in milliseconds (a field named ..._ms) is written as a Go duration rounded to the
// millisecond, under its name without _ms.
func appendTextRecord(b []byte, d *retry.Decision) []byte {
	b = append(b, "retry:"...)
	for a := range d.Fields() {
		if a.Key == "elapsed_ms" {
			for _, key := range textLead {
				for lead := range d.Fields() {
					if lead.Key == key {
						b = appendTextField(b, lead)
					}
				}
			}
		}
		if !slices.Contains(textLead, a.Key) {
			b = appendTextField(b, a)
		}
	}
	return b
}

// textLead are the fields a text record moves forward, in this order.
var textLead = []string{"decision", "reason", "wait_ms", "retry_after_ms"}

// appendTextField appends " key=value".
func appendTextField(b []byte, a slog.Attr) []byte {
	key, value := a.Key, a.Value.String()
	if name, isMS := strings.CutSuffix(key, "_ms"); isMS && a.Value.Kind() == slog.KindFloat64 {
		key, value = name, msDuration(a.Value.Float64()).String()
	}
	b = append(b, ' ')
	b = append(b, key...)
	b = append(b, '=')
	return append(b, quoteIfNeeded(value)...)
}

// msDuration turns a record's milliseconds back into a duration rounded to the millisecond
// (to the microsecond below one millisecond).
func msDuration(ms float64) time.Duration {
	d := time.Duration(ms * float64(time.Millisecond))
	if d >= time.Millisecond {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

func quoteIfNeeded(s string) string {
	if strings.ContainsAny(s, " \"=\t\n") {
		return strconv.Quote(s)
	}
	return s
}
