package retry

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/retrykit/retry/internal/requestlabel"
)

// Record is the decision record of DESIGN ("The decision record"): the JSON object written
// for every decision, one a line. Field names are pinned; times are milliseconds; absent
// fields are omitted. Beyond DESIGN's fields it has breaker (the circuit breaker's state,
// SPEC R5.3), nested (SPEC R7.3), and for gRPC calls grpc_code (DESIGN's record section),
// passthrough (a stream passed on without retries) and inner_retries (grpc-go's own retries
// are on, so the loop made one attempt, SPEC R7.3), and for a breaker or budget shared by a
// fleet (package fleet) fleet_age_ms and fleet_stale (see [FleetReporter]). It never holds a
// header value, a body or a credential: URL and Error come from the Outcome as given, and
// retryhttp gives them redacted (SPEC R6.2).
type Record struct {
	Attempt      int      `json:"attempt"`                  // the attempt decided on, 1-based
	Method       string   `json:"method,omitempty"`         // HTTP method, or the full gRPC method
	URL          string   `json:"url,omitempty"`            // redacted by retryhttp
	Status       int      `json:"status,omitempty"`         // HTTP status
	GRPCCode     string   `json:"grpc_code,omitempty"`      // gRPC status code name, "UNAVAILABLE"
	Error        string   `json:"error,omitempty"`          // the attempt's error message
	ElapsedMS    float64  `json:"elapsed_ms"`               // since the loop started
	RemainingMS  *float64 `json:"remaining_ms,omitempty"`   // before the deadline; nil without one
	RetryAfterMS *float64 `json:"retry_after_ms,omitempty"` // the server's requested wait
	WaitMS       *float64 `json:"wait_ms,omitempty"`        // the wait before the next attempt
	Decision     string   `json:"decision"`                 // "retry" or "stop"
	Reason       Reason   `json:"reason"`                   // see Reason
	Outcome      string   `json:"outcome"`                  // "success", "failure" or "unknown"
	Breaker      string   `json:"breaker,omitempty"`        // "CLOSED", "OPEN" or "HALF_OPEN"
	Nested       bool     `json:"nested,omitempty"`         // the loop ran inside another
	Passthrough  bool     `json:"passthrough,omitempty"`    // passed on once, never retried
	InnerRetries bool     `json:"inner_retries,omitempty"`  // the layer below retries itself
	FleetAgeMS   *float64 `json:"fleet_age_ms,omitempty"`   // age of the fleet view decided with
	FleetStale   bool     `json:"fleet_stale,omitempty"`    // the fleet store is unreachable: local only
	ResumedFrom  int64    `json:"resumed_from,omitempty"`   // byte offset a body was resumed at
	// TransportResends: exchanges the transport sent again by itself within the attempt.
	TransportResends int `json:"transport_resends,omitempty"`
}

// Record returns d as a decision record.
func (d Decision) Record() Record {
	r := Record{Attempt: d.Attempt, Method: d.Method, URL: d.URL, Status: d.Status,
		ElapsedMS: milliseconds(d.Elapsed), Decision: "stop", Reason: d.Reason, Outcome: d.Outcome(),
		Nested: d.Nested, Breaker: d.Breaker, GRPCCode: d.GRPCCode, Passthrough: d.Passthrough,
		InnerRetries: d.InnerRetries, FleetStale: d.FleetStale, ResumedFrom: d.ResumedFrom,
		TransportResends: d.TransportResends}
	if d.HasFleetAge {
		r.FleetAgeMS = ptr(milliseconds(d.FleetAge))
	}
	if d.Err != nil {
		r.Error = d.Err.Error()
	}
	if d.HasDeadline {
		r.RemainingMS = ptr(milliseconds(d.Remaining))
	}
	if d.HasRetryAfter {
		r.RetryAfterMS = ptr(milliseconds(d.RetryAfter))
	}
	if d.Retry {
		r.Decision = "retry"
		r.WaitMS = ptr(milliseconds(d.Wait))
	}
	return r
}

// MarshalJSON writes d as its decision [Record], on one line, with no HTML escaping (a URL's
// & stays &). encoding/json's Marshal escapes HTML in what this returns; to keep it out, write
// decisions with a json.Encoder whose SetEscapeHTML is false.
func (d Decision) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(d.Record()); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Outcome returns "success" for a confirmed success, "unknown" for an outcome that may have
// taken effect (SPEC R3.4) and "failure" for everything else.
func (d Decision) Outcome() string {
	switch d.Class {
	case ClassSuccess:
		return "success"
	case ClassUnknown:
		return "unknown"
	}
	return "failure"
}

// LogValue implements slog.LogValuer: a group with the decision record's fields and names.
func (d Decision) LogValue() slog.Value {
	r := d.Record()
	attrs := make([]slog.Attr, 0, 20)
	attrs = append(attrs, slog.String("decision", r.Decision), slog.String("reason", string(r.Reason)),
		slog.Int("attempt", r.Attempt))
	if r.Method != "" {
		attrs = append(attrs, slog.String("method", r.Method))
	}
	if r.URL != "" {
		attrs = append(attrs, slog.String("url", r.URL))
	}
	if r.Status != 0 {
		attrs = append(attrs, slog.Int("status", r.Status))
	}
	if r.GRPCCode != "" {
		attrs = append(attrs, slog.String("grpc_code", r.GRPCCode))
	}
	if r.Error != "" {
		attrs = append(attrs, slog.String("error", r.Error))
	}
	attrs = append(attrs, slog.Float64("elapsed_ms", r.ElapsedMS))
	for _, f := range []struct {
		key string
		v   *float64
	}{{"remaining_ms", r.RemainingMS}, {"retry_after_ms", r.RetryAfterMS}, {"wait_ms", r.WaitMS}} {
		if f.v != nil {
			attrs = append(attrs, slog.Float64(f.key, *f.v))
		}
	}
	attrs = append(attrs, slog.String("outcome", r.Outcome))
	if r.Breaker != "" {
		attrs = append(attrs, slog.String("breaker", r.Breaker))
	}
	if r.Nested {
		attrs = append(attrs, slog.Bool("nested", true))
	}
	if r.Passthrough {
		attrs = append(attrs, slog.Bool("passthrough", true))
	}
	if r.InnerRetries {
		attrs = append(attrs, slog.Bool("inner_retries", true))
	}
	if r.FleetAgeMS != nil {
		attrs = append(attrs, slog.Float64("fleet_age_ms", *r.FleetAgeMS))
	}
	if r.FleetStale {
		attrs = append(attrs, slog.Bool("fleet_stale", true))
	}
	if r.ResumedFrom != 0 {
		attrs = append(attrs, slog.Int64("resumed_from", r.ResumedFrom))
	}
	if r.TransportResends != 0 {
		attrs = append(attrs, slog.Int("transport_resends", r.TransportResends))
	}
	return slog.GroupValue(attrs...)
}

// report sends d to the policy's metrics, hooks and logger; ctx is the loop's context. A
// decision made before any attempt takes the method and URL of the request from ctx, where
// package retryhttp puts them.
func (p *Policy) report(ctx context.Context, d *Decision) {
	if d.NoAttempt && d.Attempt == 0 && d.Method == "" {
		// No attempt ran to name the request: its sender may have (package retryhttp).
		d.Method, d.URL = requestlabel.From(ctx)
	}
	if p.Metrics != nil {
		p.Metrics.observe(d)
	}
	if p.OnDecision != nil {
		p.OnDecision(*d)
	}
	if p.OnDecisionContext != nil {
		p.OnDecisionContext(ctx, *d)
	}
	if p.Logger != nil {
		level, msg := slog.LevelInfo, "retry stop"
		if d.Retry {
			level, msg = slog.LevelDebug, "retry"
		}
		if p.Logger.Enabled(ctx, level) {
			p.Logger.LogAttrs(ctx, level, msg, slog.Any("decision", *d))
		}
	}
}

// milliseconds returns d in milliseconds, to the microsecond.
func milliseconds(d time.Duration) float64 {
	return float64(d.Round(time.Microsecond)) / float64(time.Millisecond)
}

func ptr[T any](v T) *T { return &v }
