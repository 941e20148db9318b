package otelretry

import (
	"regexp"
	"strings"

	"github.com/retrykit/retry"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// DecisionAttributes returns the fields of d's decision record (DESIGN "The decision
// record") as span attributes, named retry.<field> (retry.attempt, retry.decision,
// retry.reason, retry.outcome, retry.elapsed_ms, retry.remaining_ms, retry.retry_after_ms,
// retry.wait_ms, retry.breaker, retry.nested, retry.passthrough, retry.inner_retries,
// retry.error) except where OpenTelemetry's conventions name them: http.request.method,
// url.full and http.response.status_code; for a gRPC call's record (retrygrpc: grpc_code
// set), rpc.system.name "grpc", rpc.method ("pkg.Service/Method") and
// rpc.response.status_code ("UNAVAILABLE"). Absent fields are left out, as in the record.
//
// Nothing secret is copied (SPEC R6.2): the URL loses its user information and every query
// value, and an error of type *url.Error is written with its URL redacted the same way. The
// attributes are meant for spans (one set per decision); they are too many, and too varied,
// for metrics. Safe for concurrent use.
func DecisionAttributes(d retry.Decision) []attribute.KeyValue {
	r := d.Record()
	kv := make([]attribute.KeyValue, 0, 16)
	kv = append(kv, attribute.Int("retry.attempt", r.Attempt), attribute.String("retry.decision", r.Decision),
		ReasonKey.String(string(r.Reason)), OutcomeKey.String(r.Outcome),
		attribute.Float64("retry.elapsed_ms", r.ElapsedMS))
	switch {
	case r.GRPCCode != "":
		kv = append(kv, semconv.RPCSystemNameGRPC, semconv.RPCMethod(strings.TrimPrefix(r.Method, "/")),
			semconv.RPCResponseStatusCode(r.GRPCCode))
	case r.Method != "":
		kv = append(kv, method(r.Method))
	}
	if u := redactURL(r.URL); u != "" {
		kv = append(kv, semconv.URLFull(u))
	}
	if r.Status != 0 {
		kv = append(kv, semconv.HTTPResponseStatusCode(r.Status))
	}
	if d.Err != nil {
		kv = append(kv, attribute.String("retry.error", redactError(d.Err)))
	}
	for _, f := range []struct {
		key string
		v   *float64
	}{{"retry.remaining_ms", r.RemainingMS}, {"retry.retry_after_ms", r.RetryAfterMS}, {"retry.wait_ms", r.WaitMS}} {
		if f.v != nil {
			kv = append(kv, attribute.Float64(f.key, *f.v))
		}
	}
	if r.Breaker != "" {
		kv = append(kv, attribute.String("retry.breaker", r.Breaker))
	}
	if r.Nested {
		kv = append(kv, attribute.Bool("retry.nested", true))
	}
	if r.Passthrough {
		kv = append(kv, attribute.Bool("retry.passthrough", true))
	}
	if r.InnerRetries {
		kv = append(kv, attribute.Bool("retry.inner_retries", true))
	}
	if r.ResumedFrom != 0 {
		kv = append(kv, attribute.Int64("retry.resumed_from", r.ResumedFrom))
	}
	if r.TransportResends != 0 {
		kv = append(kv, attribute.Int("retry.transport_resends", r.TransportResends))
	}
	return kv
}

// redactError returns err's message with every URL in it redacted as redactURL does (no
// user information, every query value REDACTED; a URL that does not parse becomes
// REDACTED). http.Client's *url.Error carries the request's URL, and an error it wraps may
// carry more.
func redactError(err error) string {
	return urlInText.ReplaceAllStringFunc(err.Error(), func(u string) string {
		if r := redactURL(u); r != "" {
			return r
		}
		return "REDACTED"
	})
}

// urlInText matches a URL in free text: a scheme, "://", then up to a space or a quote.
var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`)
