// Package stdobs shows what retry loops do with the standard library alone, for programs
// without OpenTelemetry: an expvar export of a [retry.Metrics], and [SlogObserver], which logs
// decisions with the loop's context at levels of your choice. Combine them with other
// observers through retry.Observers. It imports no third-party package, though it lives in
// the otelretry module.
package stdobs
