// Package otelretry connects retry loops to OpenTelemetry: counters and histograms fed by a
// [retry.Policy]'s OnDecision observer, and one client span per HTTP attempt under the
// caller's span, following OpenTelemetry's HTTP semantic conventions
// (http.request.resend_count on retried requests).
//
// It lives in its own module so that the retry library itself imports the standard library
// only. Programs without OpenTelemetry use package [github.com/retrykit/retry/otelretry/stdobs]
// instead (expvar and log/slog), which imports no third-party code.
//
// # Metrics
//
// [Observer.Observe], a retry.Observer (set it as Policy.OnDecision, alone or with others
// through retry.Observers), records, for every decision of a loop:
//
//	retry.attempts                 counter {attempt}  attempts that ran, counted when the loop stops
//	retry.retries                  counter {retry}    decisions to retry; attribute retry.reason
//	retry.stops                    counter {stop}     loop ends; attributes retry.reason, retry.outcome
//	retry.successes_after_retry    counter {loop}     loops that succeeded on attempt 2 or later
//	retry.transport_resends        counter {request}  requests a transport sent again by itself
//	retry.throttles                counter {attempt}  attempts the service throttled (429, RESOURCE_EXHAUSTED)
//	retry.wait.duration            histogram s        the wait before each retry; retry.reason
//	retry.attempt.duration         histogram s        one HTTP attempt, from [Observer.Transport]
//
// Attributes are low-cardinality only: http.request.method (unknown methods become _OTHER),
// retry.status_class ("5xx", ...), retry.reason, retry.outcome, and server.address only when
// [Config.ServerAddress] asks for it, and those a caller adds to a loop with
// [WithAttributes] (read through the loop's context), for instance to tell a database loop
// from an HTTP one. A gRPC call's loop (package retrygrpc's records: a grpc_code, or a full
// method "/pkg.Service/Method") is labeled with the RPC semantic conventions instead, as its
// span events are: rpc.system.name "grpc", rpc.method ("pkg.Service/Method"; _OTHER for a
// name not of that form) and, on retries and stops after an attempt,
// rpc.response.status_code ("UNAVAILABLE"); it has no http.request.method and no
// retry.status_class. No URL path, query, header or error text is ever an attribute of a
// metric.
//
// # Spans
//
// [Observer.Transport] wraps the base RoundTripper under a retrying transport (package
// retryhttp): every attempt becomes a client span, child of the span in the attempt's
// context, with the redacted URL, status, error type and, from the second attempt on,
// http.request.resend_count. [Observer.Requests] wraps the retrying transport itself so that
// the attempt spans can be numbered. [Observer.Observe] adds each decision, as the fields of
// its decision record ([DecisionAttributes]), as an event on the span of the loop's context.
package otelretry
