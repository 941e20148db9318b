package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/retrykit/retry"
)

// exportFormats are plan's --format values that write the policy as another system's retry
// configuration.
var exportFormats = []string{"grpc", "envoy", "istio"}

// export is a policy written in another system's terms: the configuration, and what it
// cannot express (each a line for stderr; --strict exits 2 when there is any).
type export struct {
	config []byte
	lost   []string
}

// exportPolicy writes p in format's terms.
func exportPolicy(format string, p retry.Policy) (export, error) {
	e := exporter{p: p, base: p.Backoff.Ceiling(0), cap: p.Backoff.Ceiling(1 << 30)}
	switch format {
	case "grpc":
		return e.grpc()
	case "envoy":
		return e.envoy()
	case "istio":
		return e.istio()
	}
	return export{}, fmt.Errorf("--format %q is invalid: want one of table, json, %s", format, strings.Join(exportFormats, ", "))
}

// exporter holds a policy being exported and the list of what was lost so far.
type exporter struct {
	p         retry.Policy
	base, cap time.Duration
	lost      []string
}

// lose records what the target cannot express.
func (e *exporter) lose(format string, args ...any) {
	e.lost = append(e.lost, fmt.Sprintf(format, args...))
}

// loseCommon records what none of the targets expresses: the policy's circuit breaker and
// retry budget and, when the policy retries at all, the RateLimit header and the rule that
// stops a write that may have been applied (unknown_outcome) rather than send it again.
func (e *exporter) loseCommon(target string) {
	if e.p.Breaker != nil {
		e.lose("the circuit breaker: %s has none in a retry policy", target)
	}
	if e.p.Budget != nil {
		e.lose("the retry budget: %s has none in a retry policy", target)
	}
	if e.retries() {
		e.lose("server waits from RateLimit headers: %s does not read them", target)
		e.lose("writes that may have been applied: %s sends them again where retry stops with unknown_outcome", target)
	}
}

// callTimeout returns the deadline of the whole call and the flag it comes from: --timeout,
// or with one attempt --attempt-timeout when shorter (that attempt's timeout is the call's);
// retry.NoLimit for none.
func (e *exporter) callTimeout() (time.Duration, string) {
	if !e.retries() && e.p.AttemptTimeout > 0 && (e.p.Timeout == retry.NoLimit || e.p.AttemptTimeout < e.p.Timeout) {
		return e.p.AttemptTimeout, "--attempt-timeout"
	}
	return e.p.Timeout, "--timeout"
}

// retries reports whether the policy makes more than one attempt: otherwise nothing about
// retrying (backoff, jitter, server waits, writes) is lost.
func (e *exporter) retries() bool { return e.p.MaxAttempts > 1 }

// protoDuration writes d as a protobuf Duration in JSON: seconds with up to nine decimals
// and an "s" ("0.1s", "30s"), as gRPC service configs, Envoy and Istio read durations.
// Durations here are never negative.
func protoDuration(d time.Duration) string {
	s := strconv.FormatInt(int64(d/time.Second), 10)
	if nanos := int64(d % time.Second); nanos != 0 {
		fraction := strconv.FormatInt(nanos+int64(time.Second), 10)[1:] // nine digits, zero-padded
		s += "." + strings.TrimRight(fraction, "0")
	}
	return s + "s"
}
