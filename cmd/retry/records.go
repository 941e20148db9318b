package main

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrykit/retry"
)

// recorder writes decision records to stderr: with --log json, DESIGN's record one a line
// (retry.Decision's MarshalJSON); with --log text, the same fields as key=value pairs on a
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

// decision writes d's record, its error in a user's words (inUserWords).
func (r *recorder) decision(d retry.Decision) {
	if r.quiet {
		return
	}
	d = inUserWords(d)
	var line []byte
	if r.json {
		line, _ = d.MarshalJSON() // a Record of strings and numbers cannot fail; & stays &
	} else {
		line = []byte(textRecord(d.Record()))
	}
	line = append(line, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w.Write(line)
}

// textRecord writes rec as "retry: attempt=1 status=503 decision=retry ..." with the JSON
// record's names, durations in Go syntax rounded to the millisecond.
func textRecord(rec retry.Record) string {
	var b strings.Builder
	b.WriteString("retry: attempt=")
	b.WriteString(strconv.Itoa(rec.Attempt))
	field := func(k, v string) {
		if v != "" {
			b.WriteString(" " + k + "=" + quoteIfNeeded(v))
		}
	}
	field("method", rec.Method)
	field("url", rec.URL)
	if rec.Status != 0 {
		field("status", strconv.Itoa(rec.Status))
	}
	field("error", rec.Error)
	field("decision", rec.Decision)
	field("reason", string(rec.Reason))
	for _, f := range []struct {
		k  string
		ms *float64
	}{{"wait", rec.WaitMS}, {"retry_after", rec.RetryAfterMS}, {"elapsed", &rec.ElapsedMS}, {"remaining", rec.RemainingMS}} {
		if f.ms != nil {
			field(f.k, msDuration(*f.ms).String())
		}
	}
	field("outcome", rec.Outcome)
	field("breaker", rec.Breaker)
	if rec.FleetAgeMS != nil {
		field("fleet_age", msDuration(*rec.FleetAgeMS).String())
	}
	if rec.FleetStale {
		field("fleet_stale", "true")
	}
	if rec.Nested {
		field("nested", "true")
	}
	if rec.ResumedFrom != 0 {
		field("resumed_from", strconv.FormatInt(rec.ResumedFrom, 10))
	}
	if rec.TransportResends != 0 {
		field("transport_resends", strconv.Itoa(rec.TransportResends))
	}
	return b.String()
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
