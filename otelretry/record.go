package otelretry

import (
	"log/slog"
	"regexp"
	"time"

	"github.com/retrykit/retry"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// DecisionAttributes returns the fields of d's decision record (see retry.Decision.Fields)
// as span attributes, named retry.<field> (retry.attempt, retry.decision, retry.reason,
// retry.outcome, retry.elapsed_ms, retry.remaining_ms, retry.retry_after_ms, retry.wait_ms,
// retry.breaker, retry.nested, retry.error, and every field an adapter adds) except where
// OpenTelemetry's conventions name them: http.request.method, url.full and
// http.response.status_code; for a gRPC call's record (by retrygrpc: grpc_code set, or a
// method that is a full gRPC method, "/pkg.Service/Method", as in a stop before any
// attempt), rpc.system.name "grpc", rpc.method ("pkg.Service/Method"; "_OTHER", with
// rpc.method_original, for a name not of that form) and rpc.response.status_code
// ("UNAVAILABLE"). Absent fields are left out, as in the record.
//
// Nothing secret is copied: the URL loses its user information and every query value, and an
// error of type *url.Error is written with its URL redacted the same way. The attributes are
// meant for spans (one set per decision); they are too many, and too varied, for metrics.
// Safe for concurrent use.
func DecisionAttributes(d retry.Decision) []attribute.KeyValue {
	_, isRPC := grpcMethod(d)
	kv := make([]attribute.KeyValue, 0, 16)
	for a := range d.Fields() {
		switch a.Key {
		case "method":
			if isRPC {
				m, ok := rpcMethod(a.Value.String())
				kv = append(kv, semconv.RPCSystemNameGRPC, m)
				if !ok {
					kv = append(kv, semconv.RPCMethodOriginal(a.Value.String()))
				}
			} else {
				kv = append(kv, method(a.Value.String()))
			}
		case "grpc_code":
			kv = append(kv, semconv.RPCResponseStatusCode(a.Value.String()))
		case "url":
			if u := redactURL(a.Value.String()); u != "" {
				kv = append(kv, semconv.URLFull(u))
			}
		case "status":
			kv = append(kv, semconv.HTTPResponseStatusCode(int(a.Value.Int64())))
		case "error":
			kv = append(kv, attribute.String("retry.error", redactError(d.Err)))
		case "reason":
			kv = append(kv, ReasonKey.String(a.Value.String()))
		case "outcome":
			kv = append(kv, OutcomeKey.String(a.Value.String()))
		default:
			kv = append(kv, attributeOf("retry."+a.Key, a.Value))
		}
	}
	return kv
}

// attributeOf is the OpenTelemetry attribute of a record field's value.
func attributeOf(key string, v slog.Value) attribute.KeyValue {
	switch v = v.Resolve(); v.Kind() {
	case slog.KindBool:
		return attribute.Bool(key, v.Bool())
	case slog.KindInt64:
		return attribute.Int64(key, v.Int64())
	case slog.KindUint64:
		return attribute.Int64(key, int64(v.Uint64()))
	case slog.KindFloat64:
		return attribute.Float64(key, v.Float64())
	case slog.KindDuration:
		return attribute.Float64(key, float64(v.Duration())/float64(time.Millisecond))
	}
	return attribute.String(key, v.String())
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
