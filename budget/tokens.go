package budget

import (
	"math"
	"sync/atomic"

	"github.com/retrykit/retry"
)

// Defaults of a [TokenBucketConfig]'s zero fields, the figures of gRPC's documented example
// (gRFC A6 leaves both required).
const (
	DefaultMaxTokens  = 10
	DefaultTokenRatio = 0.1
)

// TokenBucketConfig configures a [TokenBucket] as gRFC A6's retryThrottling does. The zero
// TokenBucketConfig is valid and means the defaults above.
type TokenBucketConfig struct {
	// MaxTokens is the bucket's size, and its content at the start, in (0, 1000] as in
	// gRFC A6, counted in thousandths (so at least 0.001). Zero means DefaultMaxTokens.
	MaxTokens float64
	// TokenRatio is the share of a token each success gives back, in (0, 1000]; like gRFC A6
	// it is counted in thousandths, finer digits dropped (0.0015 counts as 0.001), and must
	// be at least 0.001. Zero means DefaultTokenRatio.
	TokenRatio float64
}

// Validate reports whether c is usable: nil, or an error wrapping ErrInvalidConfig that
// names the field out of range, its value and what is allowed.
func (c *TokenBucketConfig) Validate() error {
	switch {
	case !(c.MaxTokens == 0 || (c.MaxTokens >= 0.001 && c.MaxTokens <= 1000)):
		return invalid("MaxTokens %v out of range: must be in [0.001, 1000] (tokens are counted in thousandths), or 0 for the default %v", c.MaxTokens, DefaultMaxTokens)
	case !(c.TokenRatio == 0 || c.TokenRatio >= 0.001 && c.TokenRatio <= 1000):
		return invalid("TokenRatio %v out of range: must be in [0.001, 1000], or 0 for the default %v", c.TokenRatio, DefaultTokenRatio)
	}
	return nil
}

// TokenBucket is gRPC's retry throttling (gRFC A6, "Throttling Retry Attempts and
// Hedged RPCs"): the bucket starts full with MaxTokens; every attempt that fails (a
// retry.ResultFailure, first attempt or retry) takes one token, every success
// (retry.ResultSuccess) gives back TokenRatio, never beyond MaxTokens; a retry is allowed
// only while more than MaxTokens/2 tokens remain. A throttled attempt
// (retry.ResultThrottled: RESOURCE_EXHAUSTED, an HTTP 429) neither takes a token nor gives
// one back, where gRFC A6 takes one for a RESOURCE_EXHAUSTED listed as retryable: a
// throttle says the service works, and a bucket drained by a burst of throttles would refuse
// the retries that wait what the server asked for once the limit resets. Asking does not take a token. Tokens are
// counted in thousandths, as gRFC A6 does. It does not count a transport's re-sends (it is
// no retry.ResendCounter): gRFC A6 throttles on failures of the service, and a re-send
// follows a dead pooled connection or a stream the server refused unprocessed, neither of
// which is one; the attempt's own result counts as usual. Use a Ratio to bound load.
//
// It implements retry.RetryBudget. Create one with [NewTokenBucket]; the zero TokenBucket
// has no tokens and refuses every retry. Safe for concurrent use: one atomic word, no lock,
// no clock.
type TokenBucket struct {
	milli      atomic.Int64 // tokens × 1000
	maxMilli   int64
	ratioMilli int64
}

// NewTokenBucket returns a full TokenBucket configured by cfg, or an error wrapping
// ErrInvalidConfig that names the field out of range.
func NewTokenBucket(cfg TokenBucketConfig) (*TokenBucket, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.TokenRatio == 0 {
		cfg.TokenRatio = DefaultTokenRatio
	}
	b := &TokenBucket{maxMilli: thousandths(cfg.MaxTokens), ratioMilli: thousandths(cfg.TokenRatio)}
	b.milli.Store(b.maxMilli)
	return b, nil
}

// thousandths returns x in thousandths, finer digits dropped; the tiny epsilon keeps a
// value such as 0.1 (0.1000000000000000055...) or 0.3 (0.2999999999999999888...) at its
// written number of thousandths.
func thousandths(x float64) int64 { return int64(math.Floor(x*1000 + 1e-6)) }

// AllowRetry reports whether more than half the tokens remain (retry.RetryBudget). It takes
// no token.
func (b *TokenBucket) AllowRetry() bool { return 2*b.milli.Load() > b.maxMilli }

// Done takes a token for a failure and gives back TokenRatio for a success
// (retry.RetryBudget), whether the attempt was a first one or a retry; a throttle, an
// ignored result (the caller's own cancellation) and a Result this package does not know
// change nothing.
func (b *TokenBucket) Done(_ bool, r retry.Result) {
	var delta int64
	switch r {
	case retry.ResultFailure:
		delta = -1000
	case retry.ResultSuccess:
		delta = b.ratioMilli
	default:
		return
	}
	for {
		old := b.milli.Load()
		next := min(max(old+delta, 0), b.maxMilli)
		if next == old || b.milli.CompareAndSwap(old, next) {
			return
		}
	}
}

// Tokens returns the tokens in the bucket now.
func (b *TokenBucket) Tokens() float64 { return float64(b.milli.Load()) / 1000 }
