package retrygrpc

import (
	"fmt"
	"strings"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
)

// DefaultIdempotencyKey is the metadata key whose presence on a call makes it safe to send
// again when WithIdempotencyKey names none: the server's idempotency-key contract settles a
// repeat (the gRPC form of draft-ietf-httpapi-idempotency-key-header).
const DefaultIdempotencyKey = "idempotency-key"

// AttemptMetadataKey is the metadata key carrying the attempt number, 1 for the first, on
// every attempt ("retry-attempt: 2"); a hedge carries the number of the attempt it hedges.
// grpc-go reserves grpc-previous-rpc-attempts for its own retries, so this package never
// sets that one.
const AttemptMetadataKey = "retry-attempt"

// HedgeMetadataKey is the metadata key carrying, on a hedge, its number among the hedges of
// its attempt, 1 for the first ("retry-attempt: 1", "retry-hedge: 1"), so that a server can
// tell a hedge from the attempt it copies.
const HedgeMetadataKey = "retry-hedge"

// Option configures an [Interceptor] when given to [New], or one call when given to the
// call as a grpc.CallOption (per-call options win over the interceptor's). A bad value is
// reported by New, or by the call before any attempt, as an error naming it. An Option is an
// immutable value: one may serve any number of calls at once.
type Option struct {
	grpc.EmptyCallOption // so that an Option is a grpc.CallOption that grpc-go ignores

	apply func(*settings) error
}

// settings is what the options configure.
type settings struct {
	policy         *retry.Policy
	codes          codeSet
	pushbackCodes  codeSet
	idempotent     map[string]bool // full method names declared idempotent
	callIdempotent bool            // this call is declared idempotent (a per-call option)
	keyName        string
	autoKey        bool // give every call that is not idempotent a fresh key
	breakers       retryhttp.BreakerGroup
	budgets        retryhttp.BudgetGroup
	hedges         retryhttp.HedgeGroup
	rateGates      retryhttp.RateGateGroup
	retryDisabled  bool // the connection was dialed with grpc.WithDisableRetry
	made           bool // made by defaultSettings: false in a zero Interceptor
}

func defaultSettings() settings {
	return settings{codes: defaultCodes, pushbackCodes: defaultPushbackCodes, keyName: DefaultIdempotencyKey, made: true}
}

// WithPolicy sets the retry policy: attempts, backoff, deadline, attempt timeout, the
// OnDecision observer, breaker and budget, as for every loop of package retry. Nil, the default,
// means the zero retry.Policy (3 attempts within 30 s). The policy's RetryableStatuses and
// Classifier concern HTTP and are not used: WithCodes and WithPushbackCodes say what is
// retried. An invalid policy is refused with the error of retry.Policy.Validate by New, or,
// given per call, by the call before any attempt.
func WithPolicy(p *retry.Policy) Option {
	return Option{apply: func(s *settings) error { s.policy = p; return nil }}
}

// WithCodes sets the status codes retried whatever the answer (default: UNAVAILABLE only,
// as AIP-194 advises). A call that may have been applied is retried on them only when it is
// idempotent (see the package documentation). OK and CANCELLED are refused, as are numbers
// that are not gRPC codes; no arguments retries no code on its own.
func WithCodes(c ...codes.Code) Option {
	return Option{apply: func(s *settings) (err error) {
		s.codes, err = newCodeSet("WithCodes", c)
		return err
	}}
}

// WithPushbackCodes sets the status codes retried only when the server asks for a wait,
// with a grpc-retry-pushback-ms trailer or a google.rpc.RetryInfo detail (default:
// RESOURCE_EXHAUSTED only). The same codes as WithCodes are refused.
func WithPushbackCodes(c ...codes.Code) Option {
	return Option{apply: func(s *settings) (err error) {
		s.pushbackCodes, err = newCodeSet("WithPushbackCodes", c)
		return err
	}}
}

// WithIdempotentMethods declares full methods ("/pkg.Service/Method") idempotent: sending
// them again is safe even when an attempt may have been applied. Given per call, it adds to
// the interceptor's list. A name not of the form /service/method is refused.
func WithIdempotentMethods(methods ...string) Option {
	return Option{apply: func(s *settings) error {
		add := make(map[string]bool, len(s.idempotent)+len(methods))
		for m := range s.idempotent {
			add[m] = true
		}
		for _, m := range methods {
			if i := strings.LastIndexByte(m, '/'); len(m) < 4 || m[0] != '/' || i <= 1 || i == len(m)-1 {
				return fmt.Errorf("retrygrpc: WithIdempotentMethods(%q): not a full method name: use /package.Service/Method", m)
			}
			add[m] = true
		}
		s.idempotent = add
		return nil
	}}
}

// Idempotent declares one call idempotent: a call option only ([New] refuses it).
func Idempotent() Option {
	return Option{apply: func(s *settings) error { s.callIdempotent = true; return nil }}
}

// WithIdempotencyKey names the metadata key whose presence on a call's outgoing metadata
// makes the call safe to send again (default DefaultIdempotencyKey). The caller sets the
// key's value, the same on every attempt. A name that is not a valid metadata key (lower
// case letters, digits, '-', '_', '.'; not starting with "grpc-"; not ending with "-bin")
// is refused.
func WithIdempotencyKey(name string) Option {
	return Option{apply: func(s *settings) error {
		if !validKey(name) {
			return fmt.Errorf("retrygrpc: WithIdempotencyKey(%q): not a metadata key: use lower case letters, digits, '-', '_' and '.', not starting with grpc- nor ending with -bin", name)
		}
		s.keyName = name
		return nil
	}}
}

// WithAutoIdempotencyKey gives every call that is neither idempotent nor keyed already a
// fresh idempotency key (retryhttp.NewIdempotencyKey, a UUID) under the key name of
// WithIdempotencyKey, the same on every attempt of the call, so that it may be retried like
// an idempotent one: opt into it only when the servers honour the key (a repeat with a key
// already seen returns the first outcome). A key the caller set is never changed.
func WithAutoIdempotencyKey() Option {
	return Option{apply: func(s *settings) error { s.autoKey = true; return nil }}
}

// WithBreakers gives every connection target (grpc.ClientConn.Target) a circuit breaker of
// its own from g, in place of the policy's Breaker. Package breaker's *Group and
// package fleet's breaker group implement retryhttp.BreakerGroup.
func WithBreakers(g retryhttp.BreakerGroup) Option {
	return Option{apply: func(s *settings) error { s.breakers = g; return nil }}
}

// WithBudgets gives every connection target (grpc.ClientConn.Target) a retry budget of its
// own from g, in place of the policy's Budget. Package budget's *Group implements
// retryhttp.BudgetGroup. Without it, and when the policy's Budget is nil, every target has
// the default budget (a budget.Quota with its defaults), shared by the calls of the
// Interceptor (its DialOptions included); a policy whose Budget is retry.NoBudget has none.
func WithBudgets(g retryhttp.BudgetGroup) Option {
	return Option{apply: func(s *settings) error { s.budgets = g; return nil }}
}

// WithRateGates gives every connection target (grpc.ClientConn.Target) a rate gate of its
// own from g, in place of the policy's RateGate. Package ratelimit's *Group and package
// fleet's rate gate group implement retryhttp.RateGateGroup. Without it, and when the
// policy's RateGate is nil, every target has a default gate (a ratelimit.Gate, shared by the
// calls of the Interceptor, its DialOptions included), which slows the calls to a target
// that answers RESOURCE_EXHAUSTED: until the server's wait (a retry pushback, a RetryInfo),
// or, without one, at the pace of AWS's adaptive retry mode (see package ratelimit). A
// policy whose RateGate is retry.NoRateGate has none.
func WithRateGates(g retryhttp.RateGateGroup) Option {
	return Option{apply: func(s *settings) error { s.rateGates = g; return nil }}
}

// WithHedging gives every unary method of every connection target its own Hedger from g
// (keyed by the target followed by the full method, "dns:///orders:443/pkg.Orders/Get"), in
// place of the policy's Hedge: a slow call gets a hedge, a copy of it sent while it is in
// flight, and the first answer is used. Only a call that may be sent again (idempotent, or
// keyed) whose reply is a proto.Message and whose options read back no header, trailer or
// peer is hedged (see the package documentation, "Hedging"). Package hedge's *Group
// implements retryhttp.HedgeGroup.
func WithHedging(g retryhttp.HedgeGroup) Option {
	return Option{apply: func(s *settings) error { s.hedges = g; return nil }}
}

// WithGRPCRetryDisabled says that the connection was dialed with grpc.WithDisableRetry(), so
// that a service config's retryPolicy does not make grpc-go retry too: the interceptors then
// retry as their policy says instead of making a single attempt (see the package
// documentation, "Double retries"). [Interceptor.DialOptions] includes both.
func WithGRPCRetryDisabled() Option {
	return Option{apply: func(s *settings) error { s.retryDisabled = true; return nil }}
}

// apply applies opts to s in order; the first error stops it.
func (s *settings) apply(opts []Option) error {
	for _, o := range opts {
		if o.apply == nil {
			return fmt.Errorf("retrygrpc: an Option that no With function made: use the package's functions")
		}
		if err := o.apply(s); err != nil {
			return err
		}
	}
	return nil
}

// validKey reports whether name is a metadata key a caller may set (gRPC's HTTP/2 protocol
// document: lower case ASCII letters, digits, '-', '_', '.'), and not a reserved or binary one.
func validKey(name string) bool {
	if name == "" || strings.HasPrefix(name, "grpc-") || strings.HasSuffix(name, "-bin") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
