package otelretry

import (
	"context"
	"fmt"
	"time"

	"github.com/retrykit/retry"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of this package's meter and tracer.
const ScopeName = "github.com/retrykit/retry/otelretry"

// Config says where an [Observer] sends what it records. The zero Config uses the global
// providers (otel.GetMeterProvider, otel.GetTracerProvider) and leaves the host out.
type Config struct {
	// MeterProvider receives the metrics; nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// TracerProvider receives the attempt spans of [Observer.Transport]; nil means
	// otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// Propagator injects each attempt span's context into the attempt's request headers
	// ([Observer.Transport]); nil means otel.GetTextMapPropagator().
	Propagator propagation.TextMapPropagator
	// ServerAddress adds the destination host (server.address) to every metric. Leave it
	// false unless the set of hosts is small: each host multiplies the time series.
	ServerAddress bool
}

// Observer records what retry loops do as OpenTelemetry metrics and spans. Make one with
// [New] and share it: its methods are safe for concurrent use.
type Observer struct {
	attempts, retries, stops, successesAfterRetry metric.Int64Counter
	transportResends, hedges, hedgesRefused       metric.Int64Counter
	throttles                                     metric.Int64Counter
	waits, attemptDurations                       metric.Float64Histogram
	tracer                                        trace.Tracer
	propagator                                    propagation.TextMapPropagator
	serverAddress                                 bool
}

// WaitBoundaries are the explicit bucket boundaries, in seconds, of the retry.wait.duration
// histogram: retry.WaitBuckets, so OpenTelemetry and retry.Metrics bucket alike.
var WaitBoundaries = func() []float64 {
	b := make([]float64, len(retry.WaitBuckets))
	for i, w := range retry.WaitBuckets {
		b[i] = w.Seconds()
	}
	return b
}()

// AttemptBoundaries are the explicit bucket boundaries, in seconds, of the
// retry.attempt.duration histogram: those the HTTP semantic conventions advise for
// http.client.request.duration.
var AttemptBoundaries = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// New creates the instruments of an Observer from c. It returns the meter provider's error
// when an instrument cannot be created.
func New(c Config) (*Observer, error) {
	mp, tp := c.MeterProvider, c.TracerProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	meter := mp.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
	o := &Observer{tracer: tp.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL)),
		propagator: c.Propagator, serverAddress: c.ServerAddress}
	if o.propagator == nil {
		o.propagator = otel.GetTextMapPropagator()
	}
	var err error
	counter := func(dst *metric.Int64Counter, name, unit, desc string) {
		if err == nil {
			*dst, err = meter.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		}
	}
	histogram := func(dst *metric.Float64Histogram, name, desc string, bounds []float64) {
		if err == nil {
			*dst, err = meter.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
				metric.WithExplicitBucketBoundaries(bounds...))
		}
	}
	counter(&o.attempts, "retry.attempts", "{attempt}", "Attempts that ran, counted when their loop stops.")
	counter(&o.retries, "retry.retries", "{retry}", "Decisions to retry.")
	counter(&o.stops, "retry.stops", "{stop}", "Retry loops that stopped, by reason.")
	counter(&o.successesAfterRetry, "retry.successes_after_retry", "{loop}", "Retry loops that succeeded on attempt 2 or later.")
	counter(&o.transportResends, "retry.transport_resends", "{request}", "Requests a transport sent again by itself within an attempt.")
	counter(&o.throttles, "retry.throttles", "{attempt}", "Attempts the service throttled (HTTP 429, gRPC RESOURCE_EXHAUSTED): the caller over its rate limit, not a failure of the service.")
	counter(&o.hedges, "retry.hedges", "{hedge}", "Hedges sent, by whether their answer was the one used (retry.hedge.won).")
	counter(&o.hedgesRefused, "retry.hedges.refused", "{hedge}", "Hedges an attempt's slowness called for and the loop did not send, by refusal (retry.reason).")
	histogram(&o.waits, "retry.wait.duration", "Wait before each retry.", WaitBoundaries)
	histogram(&o.attemptDurations, "retry.attempt.duration", "Duration of one HTTP attempt.", AttemptBoundaries)
	if err != nil {
		return nil, fmt.Errorf("otelretry: creating instruments: %w", err)
	}
	return o, nil
}

// Observe records d in the metrics: it is a retry.Observer, for retry.Policy.OnDecision
// (alone or with others, retry.Observers). A decision to retry adds 1 to retry.retries and
// its wait to retry.wait.duration; a stop adds 1 to retry.stops, d.Attempt to
// retry.attempts, and 1 to retry.successes_after_retry when it is a success on attempt 2 or
// later; a decision after an attempt adds its TransportResends to retry.transport_resends,
// and 1 to retry.throttles when the service throttled the attempt (retry.Decision.Throttled),
// with the response's attributes (retry.status_class "4xx", or rpc.response.status_code
// "RESOURCE_EXHAUSTED"), so that a dashboard tells a rate limit from a failure.
// A hedge (retry.Decision.Hedge) adds 1 to retry.hedges, with retry.hedge.won, and 1 to
// retry.attempts; a refused hedge adds 1 to retry.hedges.refused, with its refusal as
// retry.reason; the record of an attempt whose answer the loop did not use
// (retry.Decision.Lost) counts nothing else. It adds the attributes of [WithAttributes] in ctx to every metric, records with ctx (so
// exemplars link to the caller's trace), and adds d to the span of ctx, if it records, as an
// event named "retry.decision" whose attributes are [DecisionAttributes].
//
// Attempts are counted when the loop stops, from the stop's Attempt (the number of attempts
// that ran), because an observer shared by concurrent loops cannot tell a stop decided after
// a new attempt from one decided without (a wait cut short, a breaker refusal). So the
// counter lags behind loops still running, and is exact once they end. Safe for concurrent
// use.
func (o *Observer) Observe(ctx context.Context, d retry.Decision) {
	o.record(ctx, d)
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent("retry.decision", trace.WithAttributes(DecisionAttributes(d)...))
	}
}

func (o *Observer) record(ctx context.Context, d retry.Decision) {
	base, isRPC := o.decisionAttributes(ctx, d)
	if d.TransportResends > 0 && !d.NoAttempt { // a stop without an attempt repeats the last one's
		o.transportResends.Add(ctx, int64(d.TransportResends), metric.WithAttributes(base...))
	}
	if d.Throttled && !d.NoAttempt {
		o.throttles.Add(ctx, 1, metric.WithAttributes(appendResponse(base, d, isRPC)...))
	}
	o.recordHedging(ctx, d, base)
	if d.Lost { // an attempt whose answer the loop did not use: not the loop's decision
		return
	}
	if d.Retry {
		set := metric.WithAttributes(appendResponse(append(base, ReasonKey.String(string(d.Reason))), d, isRPC)...)
		o.retries.Add(ctx, 1, set)
		o.waits.Record(ctx, d.Wait.Seconds(), set)
		return
	}
	if d.Attempt > 0 {
		o.attempts.Add(ctx, int64(d.Attempt), metric.WithAttributes(base...))
	}
	o.stops.Add(ctx, 1, metric.WithAttributes(appendResponse(append(base, ReasonKey.String(string(d.Reason)),
		OutcomeKey.String(d.Outcome())), d, isRPC)...))
	if d.Reason == retry.ReasonSuccess && d.Attempt > 1 {
		o.successesAfterRetry.Add(ctx, 1, metric.WithAttributes(base...))
	}
}

// decisionAttributes returns the attributes of every metric of d: for a gRPC call's loop
// (package retrygrpc's records) the loop's own (WithAttributes), rpc.system.name and
// rpc.method, as the RPC semantic conventions name them; for any other loop those of
// baseAttributes (http.request.method, server.address). isRPC says which.
func (o *Observer) decisionAttributes(ctx context.Context, d retry.Decision) (kv []attribute.KeyValue, isRPC bool) {
	full, isRPC := grpcMethod(d)
	if !isRPC {
		return o.baseAttributes(ctx, stringAttr(d, "method"), stringAttr(d, "url")), false
	}
	own := loopAttributes(ctx)
	kv = make([]attribute.KeyValue, 0, len(own)+5)
	kv = append(append(kv, own...), semconv.RPCSystemNameGRPC)
	if full != "" {
		m, _ := rpcMethod(full)
		kv = append(kv, m)
	}
	return kv, true
}

// appendResponse appends what d's attempt got back: for a gRPC call its status code
// (rpc.response.status_code, from the record's grpc_code; none for a stop before any
// attempt), for any other loop its HTTP status class (retry.status_class).
func appendResponse(kv []attribute.KeyValue, d retry.Decision, isRPC bool) []attribute.KeyValue {
	if !isRPC {
		return append(kv, statusClass(d.Status))
	}
	if code := stringAttr(d, "grpc_code"); code != "" {
		kv = append(kv, semconv.RPCResponseStatusCode(code))
	}
	return kv
}

// recordHedging counts a hedge, as an attempt too (a loop's stop counts the attempts
// that were not hedges), and a refused one.
func (o *Observer) recordHedging(ctx context.Context, d retry.Decision, base []attribute.KeyValue) {
	if d.NoAttempt {
		return
	}
	if d.Hedge {
		o.attempts.Add(ctx, 1, metric.WithAttributes(base...))
		won := d.Winner && d.Reason == retry.ReasonSuccess
		o.hedges.Add(ctx, 1, metric.WithAttributes(append(base, HedgeWonKey.Bool(won))...))
	}
	if d.HedgeRefused != 0 {
		o.hedgesRefused.Add(ctx, 1, metric.WithAttributes(append(base, ReasonKey.String(d.HedgeRefused.String()))...))
	}
}

// stringAttr is the string that d's record holds under key, or "".
func stringAttr(d retry.Decision, key string) string {
	if v, ok := d.Attr(key); ok {
		return v.String()
	}
	return ""
}

// recordAttempt records one attempt's duration.
func (o *Observer) recordAttempt(ctx context.Context, d time.Duration, methodName, rawURL string, status int) {
	o.attemptDurations.Record(ctx, d.Seconds(), metric.WithAttributes(append(o.baseAttributes(ctx, methodName, rawURL), statusClass(status))...))
}

// baseAttributes returns the loop's own attributes (WithAttributes), the method and, when
// asked for, the host; with room for three more.
func (o *Observer) baseAttributes(ctx context.Context, methodName, rawURL string) []attribute.KeyValue {
	own := loopAttributes(ctx)
	kv := make([]attribute.KeyValue, 0, len(own)+5)
	kv = append(kv, own...)
	if methodName != "" {
		kv = append(kv, method(methodName))
	}
	if o.serverAddress {
		if h := host(rawURL); h != "" {
			kv = append(kv, semconv.ServerAddress(h))
		}
	}
	return kv
}
