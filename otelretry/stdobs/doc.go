// Package stdobs shows what retry loops do with the standard library alone, for programs
// without OpenTelemetry: an expvar export of a [retry.Metrics] (SPEC R6.4), a log/slog hook
// and [Chain] to run several hooks as one Policy.OnDecision. It imports no third-party
// package, though it lives in the otelretry module.
package stdobs
