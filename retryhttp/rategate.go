package retryhttp

import (
	"context"
	"sync"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/weakmap"
	"github.com/retrykit/retry/ratelimit"
)

// RateGateGroup gives each destination a rate gate of its own (see Transport.RateGates).
// Package ratelimit's *Group implements it, and so does package fleet's, shared by a fleet
// of processes; implementations must be safe for concurrent use.
type RateGateGroup interface {
	// RateGate returns the rate gate of the destination key, as breaker.Key names it
	// ("https://api.openai.com:443"), creating it when needed; nil means none, and the
	// policy's own RateGate applies. It must not block. A gate that has an Observe method
	// like ratelimit.Gate's is told the rate-limit headers of every answer.
	RateGate(key string) retry.RateGate
}

// limitObserver is a rate gate that learns from the rate-limit headers of every answer
// (ratelimit.Gate.Observe).
type limitObserver interface {
	Observe(now time.Time, readings []ratelimit.Reading)
}

// readingBuffers hold the Readings of an answer's rate-limit headers while the attempt judges
// it: off the attempt's stack, whose deepest point decides the stack a waiting loop keeps
// (bench/, "A waiting loop"), and without an allocation an answer.
var readingBuffers = sync.Pool{New: func() any { return new([limitsOnStack]ratelimit.Reading) }}

// putReadings gives buf back to readingBuffers, its strings cleared.
func putReadings(buf *[limitsOnStack]ratelimit.Reading) {
	clear(buf[:])
	readingBuffers.Put(buf)
}

// tokenReserver is a rate gate that takes a request's expected token cost
// (ratelimit.Gate.ReserveN).
type tokenReserver interface {
	ReserveN(now, notBefore time.Time, tokens int64) (time.Time, uint64)
}

// SDKProbeWait is how long the default rate gates of a Transport let the requests of an
// SDK's loop to a destination that has never answered wait for its first answer, which
// tells its limit, while that first request is in flight (ratelimit.Config.ProbeWait):
// an SDK's burst of first calls then keeps to the API's limit from its first request.
const SDKProbeWait = time.Second

// defaultGates are the default rate gates of one Transport value, one per destination: gates
// for the requests of an SDK's loop, which probe a destination that has never answered, and
// gates for the others, which do not.
type defaultGates struct {
	plain, sdk *ratelimit.Group
}

// defaultRateGates holds the default rate gates of each Transport value that has needed
// them; an entry goes when its Transport is collected.
var defaultRateGates = weakmap.Map[Transport, defaultGates]{New: func(*Transport) *defaultGates {
	sdk, err := ratelimit.NewGroup(ratelimit.GroupConfig{Gate: ratelimit.Config{ProbeWait: SDKProbeWait}})
	if err != nil {
		panic(err) // a constant, valid configuration
	}
	return &defaultGates{plain: new(ratelimit.Group), sdk: sdk}
}}

// rateGateFor returns the rate gate of the destination key for a request: RateGates's, or,
// when the policy has none of its own, the Transport's default one (sdk: the request comes
// from an SDK's loop).
func (t *Transport) rateGateFor(p *retry.Policy, key string, sdk bool) retry.RateGate {
	if t.RateGates != nil {
		if g := t.RateGates.RateGate(key); g != nil {
			return g
		}
	}
	if p.RateGate != nil {
		return p.RateGate
	}
	g := defaultRateGates.Get(t, true)
	if sdk {
		return g.sdk.Gate(key)
	}
	return g.plain.Gate(key)
}

// tokenCostKey is the context key of a request's expected token cost.
type tokenCostKey struct{}

// WithTokenCost returns a copy of ctx that states the expected token cost of a request sent
// with it: the destination's rate gate counts it against the API's token quotas
// (OpenAI's x-ratelimit-*-tokens, Anthropic's anthropic-ratelimit-*tokens-*), so that a
// request waits at the gate rather than be sent into a 429 when the tokens left before the
// reset do not cover it. Without it, a token quota acts only when the API throttles, through
// its reset. tokens must be positive; others state nothing.
func WithTokenCost(ctx context.Context, tokens int64) context.Context {
	return context.WithValue(ctx, tokenCostKey{}, tokens)
}

// tokenCost returns the expected token cost ctx states, or 0.
func tokenCost(ctx context.Context) int64 {
	if n, ok := ctx.Value(tokenCostKey{}).(int64); ok && n > 0 {
		return n
	}
	return 0
}

// costedGate is a rate gate that reserves a request's expected token cost (WithTokenCost).
type costedGate struct {
	gate   tokenReserver
	tokens int64
	retry.RateGate
}

func (g *costedGate) Reserve(now, notBefore time.Time) (time.Time, uint64) {
	return g.gate.ReserveN(now, notBefore, g.tokens)
}
