package simulate

import (
	"fmt"
	"strings"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
)

// peer is a retry library's documented default policy, read from its source and expressed
// as a retry.Policy, so that the simulator's clients run it under the library's own rules.
// Only what an outage or contention exercises is modelled: attempts, waits, overall time
// limits, Retry-After and client-side retry quotas.
type peer struct {
	name    string // the row's name
	version string // the module version read
	source  string // the files the defaults come from, in that module
	summary string // the defaults, in one line
	// retryAfter: the library obeys an HTTP Retry-After header by default.
	retryAfter bool
	// policy returns client i's policy: gates such as a retry quota are per client, as
	// each client process of the library has its own.
	policy func(sm *sim, random backoff.Source) (*retry.Policy, error)
}

// ours is this module's zero Policy; the peers follow in alphabetical order. Every peer but
// the AWS SDK's has no retry budget (retry.NoBudget): the AWS rows model its retry quota.
var peers = []peer{
	{
		name: "retry (ours)", version: "this module", source: "policy.go, internal/quota/quota.go", retryAfter: true,
		summary: "3 attempts, exponential 100 ms doubling to 30 s with full jitter, 30 s overall, a Retry-After wait lengthened at random by a tenth (at least 1 s); " +
			"a retry budget per client of 20 retries (or a tenth of the last second's attempts), each retry decided takes one, each successful attempt gives one back",
		policy: func(_ *sim, random backoff.Source) (*retry.Policy, error) {
			return &retry.Policy{Random: random}, nil
		},
	},
	{
		name: "aws-sdk-go-v2 v1.48.0", version: "github.com/aws/aws-sdk-go-v2 v1.48.0",
		source: "aws/retry/standard.go (standardDefaults, defaultRetryCost), aws/retry/jitter_backoff.go (backoffDelay2026), " +
			"aws/retry/middleware.go, aws/ratelimit/token_rate_limit.go",
		summary: "the default since v1.48.0 (Retry Behavior 2.1, before it the AWS_NEW_RETRIES_2026=true opt-in of v1.47): " +
			"3 attempts, exponential 50 ms doubling to 20 s with full jitter, no overall limit; a retry quota per client of 500 tokens, " +
			"14 a retry (5 after a throttling error), refunded when the retry succeeds, +1 per first-attempt success; " +
			"Retry-After not read (only x-amz-retry-after)",
		policy: func(sm *sim, random backoff.Source) (*retry.Policy, error) {
			b, err := backoff.New(backoff.Config{Base: 50 * time.Millisecond, Max: 20 * time.Second, Jitter: backoff.FullJitter})
			return &retry.Policy{MaxAttempts: 3, Backoff: b, Timeout: retry.NoLimit, Random: random,
				Budget: newRetryQuota(500, 14, 1, false)}, err
		},
	},
	{
		name: "aws-sdk-go-v2 v1.47.7", version: "github.com/aws/aws-sdk-go-v2 v1.47.7",
		source: "aws/retry/standard.go (standardDefaults without AWS_NEW_RETRIES_2026), aws/retry/jitter_backoff.go (backoffDelayLegacy), " +
			"aws/retry/middleware.go, aws/ratelimit/token_rate_limit.go",
		summary: "the default before v1.48.0 (v1.47 without AWS_NEW_RETRIES_2026): 3 attempts, a wait of rand × 2^attempt s " +
			"(up to 2 s, then 4 s; 20 s from the fifth), no overall limit; a retry quota per client of 500 tokens, 5 a retry " +
			"(10 after a timeout), refunded when the retry succeeds, +1 per successful attempt; Retry-After not read",
		policy: func(sm *sim, random backoff.Source) (*retry.Policy, error) {
			b, err := backoff.New(backoff.Config{Base: 2 * time.Second, Max: 20 * time.Second, Jitter: backoff.FullJitter})
			return &retry.Policy{MaxAttempts: 3, Backoff: b, Timeout: retry.NoLimit, Random: random,
				Budget: newRetryQuota(500, 5, 1, true)}, err
		},
	},
	{
		name: "avast/retry-go", version: "github.com/avast/retry-go/v4 v4.7.0", source: "retry.go (newDefaultRetryConfig), options.go",
		summary: "10 attempts, 100 ms doubling without a cap plus up to 100 ms at random, no overall limit, Retry-After not read",
		policy: func(_ *sim, random backoff.Source) (*retry.Policy, error) {
			b, err := backoff.New(backoff.Config{Base: 100 * time.Millisecond, Max: backoff.MaxDelay,
				Jitter: backoff.AdditiveJitter, AdditiveMax: 100 * time.Millisecond})
			return &retry.Policy{MaxAttempts: 10, Backoff: b, Timeout: retry.NoLimit, MaxWait: retry.NoLimit, Random: random,
				Budget: retry.NoBudget}, err
		},
	},
	{
		name: "cenkalti/backoff", version: "github.com/cenkalti/backoff/v5 v5.0.3", source: "retry.go, exponential.go",
		summary: "attempts without limit for 15 min, 500 ms growing 1.5x to 60 s, each wait randomized ±50%, Retry-After not read (only a RetryAfter error the operation returns)",
		policy: func(_ *sim, random backoff.Source) (*retry.Policy, error) {
			b, err := backoff.New(backoff.Config{Base: 500 * time.Millisecond, Multiplier: 1.5, Max: 60 * time.Second,
				Jitter: backoff.ProportionalJitter, FactorMin: 0.5, FactorMax: 1.5})
			return &retry.Policy{MaxAttempts: retry.NoLimit, Backoff: b, Timeout: 15 * time.Minute, MaxWait: retry.NoLimit,
				RetryAfterSpread: retry.None, Random: random, Budget: retry.NoBudget}, err
		},
	},
	{
		name: "failsafe-go http", version: "github.com/failsafe-go/failsafe-go v0.9.8", source: "failsafehttp/policy.go, retrypolicy/retry.go",
		retryAfter: true,
		summary:    "3 attempts, no wait between them unless the server sends Retry-After (429, 503; whole seconds), obeyed exactly, no overall limit",
		policy: func(_ *sim, random backoff.Source) (*retry.Policy, error) {
			b, err := backoff.New(backoff.Config{Kind: backoff.Constant, Jitter: backoff.NoJitter})
			return &retry.Policy{MaxAttempts: 3, Backoff: b, Timeout: retry.NoLimit, MaxWait: retry.NoLimit,
				RetryAfterSpread: retry.None, Random: random, Budget: retry.NoBudget}, err
		},
	},
	{
		name: "go-retryablehttp", version: "github.com/hashicorp/go-retryablehttp v0.7.8", source: "client.go (NewClient, DefaultBackoff)",
		retryAfter: true,
		summary:    "5 attempts, 1 s doubling to 30 s without jitter, no overall limit, Retry-After (429, 503) obeyed exactly, without a cap",
		policy: func(_ *sim, random backoff.Source) (*retry.Policy, error) {
			b, err := backoff.New(backoff.Config{Base: time.Second, Max: 30 * time.Second, Jitter: backoff.NoJitter})
			return &retry.Policy{MaxAttempts: 5, Backoff: b, Timeout: retry.NoLimit, MaxWait: retry.NoLimit,
				RetryAfterSpread: retry.None, Random: random, Budget: retry.NoBudget}, err
		},
	},
	{
		name: "grpc-go example", version: "google.golang.org/grpc v1.85.0",
		source:  "examples/features/retry/client/main.go (the policy, and its call's 1 s deadline), stream.go (its jitter)",
		summary: "4 attempts, 10 ms each time (multiplier 1) randomized ±20%, within the call's 1 s deadline, Retry-After not read (gRPC has its own pushback)",
		policy: func(_ *sim, random backoff.Source) (*retry.Policy, error) {
			b, err := backoff.New(backoff.Config{Base: 10 * time.Millisecond, Multiplier: 1, Max: 10 * time.Millisecond,
				Jitter: backoff.ProportionalJitter, FactorMin: 0.8, FactorMax: 1.2})
			return &retry.Policy{MaxAttempts: 4, Backoff: b, Timeout: time.Second, MaxWait: retry.NoLimit,
				RetryAfterSpread: retry.None, Random: random, Budget: retry.NoBudget}, err
		},
	},
}

// peerPolicy returns the policy of the peer row named name.
func peerPolicy(name string) func(*sim, backoff.Source) (*retry.Policy, error) {
	for _, p := range peers {
		if p.name == name {
			return p.policy
		}
	}
	panic("simulate: no peer row " + name)
}

// PeerSources describes every policy --peers compares, one line each with the version and
// the files its defaults were read from, for the command's help.
func PeerSources() []string {
	lines := make([]string, len(peers))
	for i, p := range peers {
		lines[i] = fmt.Sprintf("%s (%s, %s): %s", p.name, p.version, p.source, p.summary)
	}
	return lines
}

// retryQuota is the AWS SDK's client-side retry quota (aws/ratelimit's token bucket as the
// standard retryer uses it), as a retry.RetryBudget: a retry takes cost tokens and is refused
// when fewer are left; a successful retry gives its cost back; a first attempt that
// succeeds adds reward, and so does a successful retry when rewardRetries (before v1.48.0,
// every successful attempt added it); the bucket never holds more than it started with.
type retryQuota struct {
	tokens, capacity, cost, reward int
	rewardRetries                  bool
}

func newRetryQuota(capacity, cost, reward int, rewardRetries bool) *retryQuota {
	return &retryQuota{tokens: capacity, capacity: capacity, cost: cost, reward: reward, rewardRetries: rewardRetries}
}

// AllowRetry implements retry.RetryBudget.
func (q *retryQuota) AllowRetry() bool {
	if q.tokens < q.cost {
		return false
	}
	q.tokens -= q.cost
	return true
}

// Done implements retry.RetryBudget: a success refunds and rewards; a failure, a throttle
// (retry.ResultThrottled) and an ignored result change nothing, as the SDK's quota refunds
// and rewards only on success. The SDK's lower cost of a retry after a throttling error (5
// rather than 14 from v1.48.0) is not modelled: the quota cannot tell whose retry it prices.
func (q *retryQuota) Done(isRetry bool, r retry.Result) {
	if r != retry.ResultSuccess {
		return
	}
	if isRetry {
		q.tokens += q.cost
	}
	if !isRetry || q.rewardRetries {
		q.tokens += q.reward
	}
	q.tokens = min(q.tokens, q.capacity)
}

// peerChecks compares ours (the first row) with the peers on each measure: lower is better
// for the keys of lower, higher for the key higher. A claim holds when ours is the best or
// within 10% of the best; its detail names every peer that does better.
func peerChecks(r *Report, lower []string, higher string) {
	made := fmt.Sprintf("our defaults against the peers', %s scenario at these settings", r.Scenario)
	for _, key := range append(lower, higher) {
		better := func(a, b float64) bool { return a < b }
		if key == higher {
			better = func(a, b float64) bool { return a > b }
		}
		ours := r.Rows[0].Metrics[key]
		var beaters []string
		best := ours
		for _, row := range r.Rows[1:] {
			v := row.Metrics[key]
			if better(v, ours) {
				beaters = append(beaters, fmt.Sprintf("%s %.3g", row.Policy, v))
			}
			if better(v, best) {
				best = v
			}
		}
		close := ours == best || (key == higher && ours >= 0.9*best) || (key != higher && ours <= 1.1*best)
		detail := fmt.Sprintf("ours %.3g, and no peer does better", ours)
		if len(beaters) > 0 {
			detail = fmt.Sprintf("ours %.3g; better: %s", ours, strings.Join(beaters, ", "))
		}
		direction := "lowest"
		if key == higher {
			direction = "highest"
		}
		r.check(fmt.Sprintf("our defaults give the %s %s, or within 10%% of it", direction, key), made, close, "%s", detail)
	}
}
