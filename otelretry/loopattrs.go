package otelretry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// loopAttributesKey is the context key of the attributes [WithAttributes] adds.
type loopAttributesKey struct{}

// WithAttributes returns a copy of ctx whose retry loops carry attrs on every metric this
// package records for them, after those of an outer WithAttributes: a database loop can say
// what it calls (db.system.name, db.operation.name), since it has no HTTP method to tell it
// from an HTTP loop. The attributes reach the metrics of [Observer.Observe] through the
// loop's context, and the attempt metric of [Observer.Transport] through the request's
// context. An attribute whose key the package sets itself (http.request.method,
// server.address, rpc.system.name, rpc.method, rpc.response.status_code, retry.reason,
// retry.outcome, retry.status_class) is left out.
//
// Every distinct set of attributes is a time series of its own: use a few values known in
// advance, never an ID, a URL or a user's input.
//
//	ctx = otelretry.WithAttributes(ctx, attribute.String("db.system.name", "postgresql"))
//	row, err := retry.DoValue(ctx, policy, query) // policy.OnDecision = obs.Observe
func WithAttributes(ctx context.Context, attrs ...attribute.KeyValue) context.Context {
	outer := loopAttributes(ctx)
	all := make([]attribute.KeyValue, 0, len(outer)+len(attrs))
	all = append(all, outer...)
	for _, kv := range attrs {
		switch kv.Key {
		case semconv.HTTPRequestMethodKey, semconv.ServerAddressKey, ReasonKey, OutcomeKey, StatusClassKey,
			semconv.RPCSystemNameKey, semconv.RPCMethodKey, semconv.RPCResponseStatusCodeKey:
		default:
			all = append(all, kv)
		}
	}
	return context.WithValue(ctx, loopAttributesKey{}, all)
}

// loopAttributes returns the attributes WithAttributes put in ctx; nil when none.
func loopAttributes(ctx context.Context) []attribute.KeyValue {
	attrs, _ := ctx.Value(loopAttributesKey{}).([]attribute.KeyValue)
	return attrs
}
