// Package stdobs shows what retry loops do with the standard library alone, for programs
// without OpenTelemetry: an expvar export of a [retry.Metrics] (SPEC R6.4), log/slog hooks
// ([SlogContextHook] logs with the loop's context at levels of your choice, [SlogHook]
// without it), and [Chain] and [ChainContext] to run several hooks as one
// Policy.OnDecision or Policy.OnDecisionContext. It imports no third-party
// package, though it lives in the otelretry module.
package stdobs
