package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
)

// grpcMaxAttempts is the most attempts grpc-go's retryPolicy makes (gRFC A6); larger values
// are capped to it.
const grpcMaxAttempts = 5

// grpcServiceConfig is a gRPC service config (grpc/doc/service_config.md) with one method
// config for every method of every service.
type grpcServiceConfig struct {
	MethodConfig []grpcMethodConfig `json:"methodConfig"`
}

type grpcMethodConfig struct {
	Name        []struct{}       `json:"name"` // [{}]: every method
	Timeout     string           `json:"timeout,omitempty"`
	RetryPolicy *grpcRetryPolicy `json:"retryPolicy,omitempty"`
}

type grpcRetryPolicy struct {
	MaxAttempts          int      `json:"maxAttempts"`
	InitialBackoff       string   `json:"initialBackoff"`
	MaxBackoff           string   `json:"maxBackoff"`
	BackoffMultiplier    float64  `json:"backoffMultiplier"`
	RetryableStatusCodes []string `json:"retryableStatusCodes"`
}

// grpc writes the policy as a service config whose retryPolicy grpc-go applies to every
// method: attempts (at most 5), exponential backoff with the policy's base, cap and
// multiplier, the retry codes of retrygrpc's default (UNAVAILABLE), and --timeout as the
// method timeout (with one attempt, the shorter of it and --attempt-timeout).
func (e *exporter) grpc() (export, error) {
	mc := grpcMethodConfig{Name: []struct{}{{}}}
	if timeout, _ := e.callTimeout(); timeout != retry.NoLimit {
		mc.Timeout = protoDuration(timeout)
	}
	if e.retries() {
		if e.base <= 0 {
			return export{}, fmt.Errorf("--base %v cannot be exported to gRPC: its initialBackoff must be above zero", e.base)
		}
		rp := &grpcRetryPolicy{MaxAttempts: min(e.p.MaxAttempts, grpcMaxAttempts), InitialBackoff: protoDuration(e.base),
			MaxBackoff: protoDuration(e.cap), BackoffMultiplier: e.p.Backoff.Multiplier(),
			RetryableStatusCodes: []string{"UNAVAILABLE"}}
		switch e.p.Backoff.Kind() {
		case backoff.Constant:
			rp.BackoffMultiplier = 1
		case backoff.Linear:
			rp.BackoffMultiplier = 2
			e.lose("--backoff linear: gRPC backs off exponentially only; exported with backoffMultiplier 2")
		}
		if e.p.MaxAttempts > grpcMaxAttempts {
			e.lose("--attempts %d: gRPC makes at most %d attempts; exported as %d", e.p.MaxAttempts, grpcMaxAttempts, grpcMaxAttempts)
		}
		e.lose("--jitter %s: grpc-go draws each wait within 20%% of its ceiling, whatever the jitter", e.p.Backoff.Jitter())
		e.lose("RESOURCE_EXHAUSTED with a server-requested wait: gRPC cannot make a code's retry depend on pushback; left out of retryableStatusCodes")
		e.lose("Retry-After and --max-wait: gRPC follows grpc-retry-pushback-ms without capping it at --max-wait or stopping when it passes the deadline")
		mc.RetryPolicy = rp
	}
	if e.retries() && e.p.AttemptTimeout > 0 {
		e.lose("--attempt-timeout %v: gRPC has no per-attempt timeout", e.p.AttemptTimeout)
	}
	e.loseCommon("gRPC")
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(grpcServiceConfig{MethodConfig: []grpcMethodConfig{mc}}); err != nil {
		return export{}, err
	}
	return export{config: b.Bytes(), lost: e.lost}, nil
}
