package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
)

// grpcMaxAttempts is the most attempts a gRPC client makes by default (gRFC A6, "Limits on
// Retries and Hedges"): grpc-go lowers a larger maxAttempts to it unless the channel is
// dialled with grpc.WithMaxCallAttempts(n), which raises the limit to n.
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
// method: the attempts as given (above 5 with a warning: the client lowers them unless its
// channel raises its limit), exponential backoff with the policy's base, cap and
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
		rp := &grpcRetryPolicy{MaxAttempts: e.p.MaxAttempts, InitialBackoff: protoDuration(e.base),
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
			e.lose("--attempts %d: grpc-go lowers maxAttempts to %d unless the channel is dialled with grpc.WithMaxCallAttempts(%d) or more",
				e.p.MaxAttempts, grpcMaxAttempts, e.p.MaxAttempts)
		}
		e.lose("failures after response headers: grpc-go's retry gives up on any response that carries headers (one that is not Trailers-Only), where retrygrpc retries it")
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
