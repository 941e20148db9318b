package main

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"gopkg.in/yaml.v3"
)

// meshRetryOn are the Envoy retry conditions that match what retry retries: connections
// refused or reset before an answer, HTTP/2 streams the server refused, and gRPC's
// UNAVAILABLE; the statuses come with them.
const meshRetryOn = "connect-failure,refused-stream,reset,unavailable"

// Envoy's back-off when a route sets none (and so Istio's, which cannot set one).
const (
	envoyDefaultBase = 25 * time.Millisecond
	envoyDefaultMax  = 250 * time.Millisecond
)

// envoyRoute is the part of an Envoy RouteAction (config.route.v3) that a retry policy
// fills: the route's timeout and its retry_policy.
type envoyRoute struct {
	Timeout     string           `yaml:"timeout"`
	RetryPolicy envoyRetryPolicy `yaml:"retry_policy"`
}

type envoyRetryPolicy struct {
	RetryOn                 string             `yaml:"retry_on"`
	NumRetries              int                `yaml:"num_retries"`
	PerTryTimeout           string             `yaml:"per_try_timeout,omitempty"`
	RetriableStatusCodes    []int              `yaml:"retriable_status_codes,flow,omitempty"`
	RetryBackOff            envoyBackOff       `yaml:"retry_back_off"`
	RateLimitedRetryBackOff envoyRateLimitBack `yaml:"rate_limited_retry_back_off"`
}

type envoyBackOff struct {
	BaseInterval string `yaml:"base_interval"`
	MaxInterval  string `yaml:"max_interval"`
}

type envoyRateLimitBack struct {
	ResetHeaders []envoyResetHeader `yaml:"reset_headers"`
	MaxInterval  string             `yaml:"max_interval,omitempty"`
}

type envoyResetHeader struct {
	Name   string `yaml:"name"`
	Format string `yaml:"format"`
}

// istioRoute is the part of an Istio VirtualService HTTPRoute (networking.istio.io) that a
// retry policy fills: the route's timeout and its retries.
type istioRoute struct {
	Timeout string       `yaml:"timeout,omitempty"`
	Retries istioRetries `yaml:"retries"`
}

type istioRetries struct {
	Attempts      int    `yaml:"attempts"`
	PerTryTimeout string `yaml:"perTryTimeout,omitempty"`
	RetryOn       string `yaml:"retryOn,omitempty"`
}

// statuses returns the policy's retryable HTTP statuses.
func (e *exporter) statuses() []int {
	if e.p.RetryableStatuses == nil {
		return retry.DefaultRetryableStatuses
	}
	return e.p.RetryableStatuses
}

// envoy writes the policy as the timeout and retry_policy of an Envoy route: retries,
// per-try timeout, statuses, the back-off (Envoy's is exponential, doubling, with full
// jitter) and Retry-After through rate_limited_retry_back_off, capped at --max-wait.
func (e *exporter) envoy() (export, error) {
	retryOn := meshRetryOn
	if len(e.statuses()) > 0 { // none with --retry-on none
		retryOn += ",retriable-status-codes"
	}
	r := envoyRoute{Timeout: "0s", RetryPolicy: envoyRetryPolicy{
		RetryOn: retryOn, NumRetries: e.p.MaxAttempts - 1,
		RetriableStatusCodes:    e.statuses(),
		RetryBackOff:            envoyBackOff{BaseInterval: protoDuration(max(e.base, time.Millisecond)), MaxInterval: protoDuration(max(e.cap, e.base, time.Millisecond))},
		RateLimitedRetryBackOff: envoyRateLimitBack{ResetHeaders: []envoyResetHeader{{Name: "Retry-After", Format: "SECONDS"}}},
	}}
	if e.p.Timeout != retry.NoLimit {
		r.Timeout = protoDuration(e.p.Timeout)
	}
	if e.p.AttemptTimeout > 0 {
		r.RetryPolicy.PerTryTimeout = protoDuration(e.p.AttemptTimeout)
	}
	if e.p.MaxWait != retry.NoLimit {
		r.RetryPolicy.RateLimitedRetryBackOff.MaxInterval = protoDuration(e.p.MaxWait)
	}
	if e.retries() {
		if e.p.MaxWait == retry.NoLimit {
			e.lose("--max-wait none: Envoy caps a Retry-After wait at 300s")
		}
		if e.base < time.Millisecond {
			e.lose("--base %v: Envoy's base_interval is at least 1ms; exported as 1ms", e.base)
		}
		switch b := e.p.Backoff; {
		case b.Kind() == backoff.Linear:
			e.lose("--backoff linear: Envoy backs off exponentially (doubling) only; exported as exponential from --base to --max-delay")
		case b.Kind() == backoff.Exponential && b.Multiplier() != 2:
			e.lose("--multiplier %v: Envoy doubles the back-off each retry; exported with a multiplier of 2", b.Multiplier())
		}
		if j := e.p.Backoff.Jitter(); j != backoff.FullJitter {
			e.lose("--jitter %s: Envoy draws every wait with full jitter", j)
		}
		e.lose("Retry-After: Envoy reads it in seconds only (not as an HTTP date) and does not stop at once when the wait passes the route timeout")
	}
	e.loseCommon("Envoy")
	return e.yaml(r)
}

// istio writes the policy as the timeout and retries of an Istio VirtualService HTTP route.
// Istio sets no back-off: Envoy's default (25 ms doubling to 250 ms, full jitter) applies.
// Istio's validation refuses a retries block with attempts 0 (one attempt) and anything
// else, so one attempt is "attempts: 0" alone, its timeout the route's; and it takes
// durations in whole milliseconds only.
func (e *exporter) istio() (export, error) {
	var r istioRoute
	if timeout, flag := e.callTimeout(); timeout != retry.NoLimit {
		r.Timeout = e.istioDuration(flag, timeout)
	}
	if e.retries() {
		codes := make([]string, 0, len(e.statuses()))
		for _, s := range e.statuses() {
			codes = append(codes, strconv.Itoa(s))
		}
		r.Retries = istioRetries{Attempts: e.p.MaxAttempts - 1, RetryOn: strings.Join(append([]string{meshRetryOn}, codes...), ",")}
		if e.p.AttemptTimeout > 0 {
			r.Retries.PerTryTimeout = e.istioDuration("--attempt-timeout", e.p.AttemptTimeout)
		}
		b := e.p.Backoff
		if b.Kind() == backoff.Constant || e.base != envoyDefaultBase || e.cap != envoyDefaultMax ||
			b.Kind() == backoff.Linear || b.Multiplier() != 2 {
			e.lose("the back-off (--backoff %s, --base %v, --max-delay %v): Istio cannot set one; Envoy's default applies (25ms doubling to 250ms)",
				b.Kind(), e.base, e.cap)
		}
		if j := b.Jitter(); j != backoff.FullJitter {
			e.lose("--jitter %s: Envoy draws every wait with full jitter", j)
		}
		e.lose("Retry-After and --max-wait: Istio cannot make Envoy wait as the server asks")
	}
	e.loseCommon("Istio")
	return e.yaml(r)
}

// istioDuration writes d for Istio, which takes whole milliseconds (its ValidateDuration):
// a finer d is rounded up to the next millisecond, and the loss named with flag.
func (e *exporter) istioDuration(flag string, d time.Duration) string {
	if rest := d % time.Millisecond; rest != 0 {
		rounded := d - rest + time.Millisecond
		e.lose("%s %v: Istio takes whole milliseconds; exported as %v", flag, d, rounded)
		d = rounded
	}
	return protoDuration(d)
}

// yaml writes v as YAML, indented by two spaces.
func (e *exporter) yaml(v any) (export, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return export{}, err
	}
	if err := enc.Close(); err != nil {
		return export{}, err
	}
	return export{config: b.Bytes(), lost: e.lost}, nil
}
