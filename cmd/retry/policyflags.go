package main

import (
	"fmt"
	"time"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/backoff"
	"github.com/spf13/pflag"
)

// Defaults of the policy flags. They are the library's defaults: retry.DefaultMaxAttempts,
// retry.DefaultTimeout, retry.DefaultMaxWait, and retry.DefaultBackoff's kind, base,
// multiplier, cap (30 s) and jitter (TestPolicyFlagDefaultsAreTheLibrarys checks that they stay so). A cap of 30 s
// lets the schedule of SPEC R1.6 (waits of 1, 2, 4, 8, 16 s) run without a --max-delay.
const (
	defaultBase     = 100 * time.Millisecond
	defaultMaxDelay = 30 * time.Second
	maxAttempts     = 1000
)

// policyFlags are the policy flags shared by http, run and plan (DESIGN "The command-line
// contract").
type policyFlags struct {
	attempts       int
	kind           string
	base           time.Duration
	multiplier     float64
	maxDelay       time.Duration
	jitter         string
	timeout        time.Duration
	attemptTimeout time.Duration
	maxWait        time.Duration
	seed           uint64
	seedSet        bool
	log            string
	quiet          bool

	fs *pflag.FlagSet
}

var (
	kindNames   = []string{"exponential", "linear", "constant"}
	jitterNames = []string{"full", "equal", "decorrelated", "proportional", "additive", "none"}
	noLimit     = time.Duration(retry.NoLimit)
)

// register defines the policy flags but --log and --quiet on fs, with their defaults.
func (f *policyFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	f.attempts, f.kind, f.base, f.maxDelay = retry.DefaultMaxAttempts, "exponential", defaultBase, defaultMaxDelay
	f.multiplier = retry.DefaultBackoff.Multiplier()
	f.jitter, f.timeout, f.maxWait, f.log = "full", retry.DefaultTimeout, retry.DefaultMaxWait, "text"
	fs.Var(intValue[int]{&f.attempts, 1, maxAttempts}, "attempts", "total attempts, the first included, 1 to 1000")
	fs.Var(choiceValue{&f.kind, kindNames}, "backoff", "growth of the wait ceiling: exponential, linear or constant")
	fs.Var(durationValue{d: &f.base}, "base", "first wait ceiling (exponential, linear), every wait (constant)")
	fs.Var(multiplierValue{&f.multiplier}, "multiplier", "growth of the exponential ceiling per retry, at least 1:\nbase × multiplier^n (1.5 or 1.6 are common)")
	fs.Var(durationValue{d: &f.maxDelay}, "max-delay", "cap on the wait ceiling (default 30s, the library's default cap,\nor --base when larger)")
	fs.Var(choiceValue{&f.jitter, jitterNames}, "jitter", "how each wait is drawn from its ceiling:\nfull, equal, decorrelated, proportional, additive or none")
	fs.Var(durationValue{d: &f.timeout, min: 1, none: &noLimit}, "timeout", "overall deadline, attempts and waits together, or none")
	fs.Var(durationValue{d: &f.attemptTimeout}, "attempt-timeout", "deadline of one attempt, at most the time left (default: none)")
	fs.Var(durationValue{d: &f.maxWait, min: 1, none: &noLimit}, "max-wait", "longest single wait accepted, Retry-After included, or none")
	fs.Var(seedValue{&f.seed, &f.seedSet}, "seed", "seed of the jitter draws, for a reproducible schedule (default: random)")
	// Defaults that the usage states itself:
	fs.Lookup("max-delay").DefValue = ""
	fs.Lookup("attempt-timeout").DefValue = ""
}

// registerRecords defines --log and --quiet, the flags of the decision records on stderr.
// plan, which makes no decisions, accepts them too, as DESIGN shares them with every
// subcommand.
func (f *policyFlags) registerRecords(fs *pflag.FlagSet) {
	fs.Var(choiceValue{&f.log, []string{"text", "json"}}, "log", "format of the decision records on stderr: text or json")
	fs.BoolVar(&f.quiet, "quiet", false, "print no decision records")
}

// policy returns the retry.Policy the flags describe, or a usage error naming the flags
// that do not fit together.
func (f *policyFlags) policy() (retry.Policy, error) {
	kind, err := backoff.ParseKind(f.kind)
	if err != nil {
		return retry.Policy{}, err
	}
	jitter, err := backoff.ParseJitter(f.jitter)
	if err != nil {
		return retry.Policy{}, err
	}
	maxDelay := f.maxDelay
	if !f.fs.Changed("max-delay") {
		maxDelay = max(maxDelay, f.base)
	} else if maxDelay < f.base {
		return retry.Policy{}, fmt.Errorf("--max-delay %v is below --base %v: the cap must be at least the base", maxDelay, f.base)
	}
	var multiplier float64 // what backoff.Config wants for linear and constant
	if kind == backoff.Exponential {
		multiplier = f.multiplier
	} else if f.fs.Changed("multiplier") {
		return retry.Policy{}, fmt.Errorf("--multiplier %v applies to --backoff exponential only, not %s", f.multiplier, f.kind)
	}
	strategy, err := backoff.New(backoff.Config{Kind: kind, Base: f.base, Max: maxDelay, Jitter: jitter, Multiplier: multiplier})
	if err != nil {
		return retry.Policy{}, err
	}
	p := retry.Policy{MaxAttempts: f.attempts, Backoff: strategy, Timeout: f.timeout,
		AttemptTimeout: f.attemptTimeout, MaxWait: f.maxWait}
	if f.seedSet {
		p.Random = backoff.NewSource(f.seed)
	}
	return p, p.Validate()
}
