package retrygrpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/retrykit/retry"

	"google.golang.org/grpc"
)

// Interceptor holds the unary and stream client interceptors of one configuration. Make it
// with [New]; the zero Interceptor has New's defaults. It is safe for concurrent use by any
// number of calls and connections.
//
//	ic, err := retrygrpc.New(retrygrpc.WithPolicy(&policy))
//	if err != nil { ... }
//	conn, err := grpc.NewClient(target, append(ic.DialOptions(), creds)...)
type Interceptor struct {
	s       settings
	warned  sync.Once     // the warning about grpc-go's own retries, given once
	budgets targetBudgets // the default retry budget of each target
	gates   targetGates   // the default rate gate of each target
}

// New returns an Interceptor configured by opts, or an error naming the first bad option:
// an invalid policy (retry.Policy.Validate's error, matching retry.ErrInvalidPolicy), a bad
// code or method name, or Idempotent, which concerns one call.
//
// With no options it retries UNAVAILABLE (and RESOURCE_EXHAUSTED when the server asks for a
// wait) under the zero retry.Policy: 3 attempts within 30 s, exponential backoff from 100 ms
// with full jitter; but only a call that may be sent again: a method declared idempotent
// (WithIdempotentMethods, Idempotent, idempotency_level in its proto) or carrying an
// idempotency key, or a failure that shows the server did not process the call (no
// connection; a server-requested wait). A method that is none of these, answered
// UNAVAILABLE by a server, stops after that one attempt with unknown_outcome
// (retry.ErrUnknownOutcome): it may have been applied.
func New(opts ...Option) (*Interceptor, error) {
	ic := &Interceptor{s: defaultSettings()}
	if err := ic.s.apply(opts); err != nil {
		return nil, err
	}
	if ic.s.callIdempotent {
		return nil, errors.New("retrygrpc: Idempotent() is a call option: to declare methods idempotent for every call, use WithIdempotentMethods")
	}
	if p := ic.s.policy; p != nil {
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("retrygrpc: WithPolicy: %w", err)
		}
	}
	return ic, nil
}

// DialOptions returns what a connection needs to retry under ic: the unary and stream
// interceptors, and grpc.WithDisableRetry() so that grpc-go's own retries (enabled by a
// service config's retryPolicy) do not multiply with ours. Put them before other options
// that add interceptors: the retry interceptors are then the outermost, and interceptors
// added after them see every attempt (see the package documentation on otelgrpc).
func (ic *Interceptor) DialOptions() []grpc.DialOption {
	disabled := &Interceptor{s: ic.settings()}
	disabled.s.retryDisabled = true
	disabled.budgets.group = ic.defaultBudgets()
	disabled.gates.group = ic.defaultGates()
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(disabled.Unary),
		grpc.WithChainStreamInterceptor(disabled.Stream),
		grpc.WithDisableRetry(),
	}
}

// Unary is a grpc.UnaryClientInterceptor: it runs the call through a retry loop (package
// retry's Run) and returns nil on success; the server's status as it came for a code that is
// not retried; or, when the policy stops the loop otherwise, an error whose text is the
// loop's summary, that errors.As turns into a *retry.Error (reason, attempts, the last
// attempt's status), and whose gRPC status (status.Code, status.FromError) is the last
// attempt's, code, message and details unchanged (CANCELLED or DEADLINE_EXCEEDED when the
// caller's context ended the loop, UNAVAILABLE when no attempt could run, as for an open
// circuit breaker: see the package documentation, "Errors").
func (ic *Interceptor) Unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
	invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	c, err := ic.newCall(ctx, method, cc, opts, false)
	if err != nil {
		return err
	}
	c.req, c.reply, c.invoker = req, reply, invoker
	if c.hedgeable() {
		return c.hedgedUnary()
	}
	_, final, err := retry.Run(c.ctx, &c.policy, retry.Operation[struct{}]{Attempt: c.unaryAttempt, Attrs: c.labels[:]})
	final.End()
	return stopStatus(err, c.method)
}

// Stream is a grpc.StreamClientInterceptor. A server-streaming call is retried, under the
// same rules as a unary one, until the first header or message arrives; from then on its
// failures are returned as they come, and the loop's last decision waits for the stream's
// end (RecvMsg's io.EOF or error, or the end of the caller's context). Client-streaming and
// bidirectional calls are passed through untouched: one attempt, no deadline of the
// policy's, no breaker or budget, and, when the policy has an OnDecision observer, a
// decision record that says passthrough.
func (ic *Interceptor) Stream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
	streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	c, err := ic.newCall(ctx, method, cc, opts, desc.ClientStreams)
	if err != nil {
		return nil, err
	}
	if desc.ClientStreams {
		return c.passthrough(desc, streamer)
	}
	return &serverStream{c: c, desc: desc, streamer: streamer}, nil
}

// settings returns ic's settings: New's defaults for the zero Interceptor.
func (ic *Interceptor) settings() settings {
	if !ic.s.made {
		return defaultSettings()
	}
	return ic.s
}

// warnInnerRetries says once, on slog's default logger, that grpc-go's own retries are on
// for a connection of ic's.
func (ic *Interceptor) warnInnerRetries(target, method string) {
	ic.warned.Do(func() {
		slog.Warn("retrygrpc: the service config enables grpc-go's own retries (retryPolicy); the interceptor makes one attempt per call so that retries do not multiply. Dial with grpc.WithDisableRetry() (Interceptor.DialOptions does) to retry under the policy instead",
			slog.String("target", target), slog.String("method", method))
	})
}
