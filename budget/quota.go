package budget

import (
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/internal/quota"
)

// Defaults of a [QuotaConfig]'s zero fields: the default budget of a zero retry.Policy.
const (
	// DefaultQuotaRetries is how many retries a Quota holds at its start, and at least.
	DefaultQuotaRetries = quota.DefaultRetries
	// DefaultQuotaRefill is the share of a retry each successful attempt gives back.
	DefaultQuotaRefill = quota.DefaultRefill
)

// QuotaConfig configures a [Quota]. The zero QuotaConfig is valid and means the defaults
// above.
type QuotaConfig struct {
	// Retries is how many retries the quota holds at its start, and holds at least: the
	// retries a burst of failures may spend before successes refill it. Zero means
	// DefaultQuotaRetries; otherwise from 1 to 1048576.
	Retries int
	// Refill is the share of a retry that each successful attempt gives back, counted in
	// thousandths (at least 0.001, at most 1048576). Zero means DefaultQuotaRefill (1):
	// the quota keeps up while the retries stay within the successes.
	Refill float64
}

// QuotaFor returns the QuotaConfig of the default quota of loops under p (a nil p: the zero
// Policy): the defaults, holding as many retries as one loop under p may make when that is
// more than DefaultQuotaRetries, and 1048576 for a policy without an attempt limit, so that
// the quota never refuses a lone loop the retries its policy allows. Package retry sizes the
// default budget of a Policy value so, and packages retryhttp and retrygrpc size their
// default budgets by their policy.
func QuotaFor(p *retry.Policy) QuotaConfig {
	attempts := retry.DefaultMaxAttempts
	if p != nil && p.MaxAttempts != 0 {
		attempts = p.MaxAttempts
	}
	return QuotaConfig{Retries: quota.RetriesFor(attempts)}
}

// Validate reports whether c is usable: nil, or an error wrapping ErrInvalidConfig that
// names the field out of range, its value and what is allowed.
func (c *QuotaConfig) Validate() error {
	switch {
	case c.Retries != 0 && !quota.Valid(c.Retries, quota.DefaultRefill):
		return invalid("Retries %d out of range: must be from 1 to %d, or 0 for the default %d", c.Retries, quota.MaxRetries, DefaultQuotaRetries)
	case c.Refill != 0 && !quota.Valid(1, c.Refill):
		return invalid("Refill %v out of range: must be from %v to %v (counted in thousandths), or 0 for the default %v",
			c.Refill, quota.MinRefill, quota.MaxRefill, DefaultQuotaRefill)
	}
	return nil
}

// Quota is a retry quota refilled by successes, the default retry budget of package retry
// (a zero retry.Policy's, one per Policy value; retryhttp's and retrygrpc's, one per
// destination). Every retry a loop decides takes one retry from it, before the loop waits,
// and every attempt that succeeds gives Refill of one back; a retry is refused when less
// than one is left. It holds Retries, or a tenth of the attempts of the last second when
// that is more (the Google SRE book's 10% per-client ratio, as an allowance for the
// failures of many calls in flight at once), and starts full: a single call keeps every
// retry its policy allows, up to Retries. With the defaults it refuses retries only when
// failures are widespread: it keeps up while retries stay within the successes, until a
// third of the operations fail every attempt, or half of all attempts fail at random.
// Nothing refills it but successes, which first attempts (never refused) bring once the
// service answers again; a throttle (an HTTP 429) does not, nor does time alone, so a total outage gets Retries retries (or
// the tenth of the last second's attempts) and no more. An attempt that never reached the
// server (retry.Outcome.NeverReached) takes nothing: the retry loop does not ask about the
// retry after it. It is the AWS SDKs' retry quota (500 tokens, 5 or 14 a retry, 1 back a
// success) sized to a few calls, one per destination rather than per client.
//
// It implements retry.RetryBudget. Create one with [NewQuota]. Safe for concurrent use; it
// reads the monotonic clock and takes a lock per call, and allocates nothing. It may be made
// outside a testing/synctest bubble and used inside.
type Quota struct {
	q quota.Quota
}

// NewQuota returns a full Quota configured by cfg, or an error wrapping ErrInvalidConfig
// that names the field out of range.
func NewQuota(cfg QuotaConfig) (*Quota, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	retries, refill := cfg.Retries, cfg.Refill
	if retries == 0 {
		retries = DefaultQuotaRetries
	}
	if refill == 0 {
		refill = DefaultQuotaRefill
	}
	b := new(Quota)
	b.q.Init(retries, refill)
	return b, nil
}

// AllowRetry takes one retry from the quota and reports true, or reports false when less
// than one is left (retry.RetryBudget). It reads the clock and takes the quota's lock.
func (b *Quota) AllowRetry() bool { return b.q.Take(time.Now()) }

// Done counts an attempt, first or retry, and gives back Refill of a retry when it
// succeeded (retry.RetryBudget). A throttled attempt (retry.ResultThrottled) counts as an
// attempt and gives nothing back, as a failure: the service answered but did no work, and a
// refill per throttle would let a client over its rate limit retry as freely as one that is
// served. It reads the clock and takes the quota's lock.
func (b *Quota) Done(_ bool, r retry.Result) { b.q.Done(time.Now(), r == retry.ResultSuccess) }

// Retries returns the retries left now.
func (b *Quota) Retries() float64 { return b.q.Retries(time.Now()) }
