package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/retrykit/retry"
	"github.com/spf13/pflag"
)

// curlRetryFlags are curl's retry flags and -m, which retry http takes with curl's meanings
// (curl's manual, docs/cmdline-opts) by mapping each onto a policy flag:
//
//	--retry N             --attempts N+1 (N retries after the first attempt)
//	--retry-delay S       --backoff constant --base S --jitter none (S = 0: the policy's backoff)
//	--retry-max-time S    --timeout S (S = 0: none)
//	-m, --max-time S      --attempt-timeout S (curl resets it for every retry)
//
// A curl flag and the policy flag it maps onto cannot both be given. --retry-all-errors
// and --retry-connrefused widen what is retried (retryClassifier).
type curlRetryFlags struct {
	retries      int
	delay        time.Duration
	maxTime      time.Duration // --retry-max-time
	attemptTime  time.Duration // -m, --max-time
	allErrors    bool
	connRefused  bool
	fs           *pflag.FlagSet
	policyFlags  *policyFlags
	failOnStatus *bool // --fail: with --retry-all-errors, a status of 400 or more is an error to retry
}

// register defines the flags on fs; apply maps them onto f.
func (c *curlRetryFlags) register(fs *pflag.FlagSet, f *policyFlags, fail *bool) {
	c.fs, c.policyFlags, c.failOnStatus = fs, f, fail
	fs.Var(intValue[int]{&c.retries, 0, maxAttempts - 1}, "retry", "curl's --retry: N retries after the first attempt, 0 to 999\n(--attempts N+1)")
	fs.Var(secondsValue{&c.delay}, "retry-delay", "curl's --retry-delay: wait SECONDS before each retry, exactly\n(--backoff constant --base SECONDS --jitter none); 0: the policy's backoff")
	fs.Var(secondsValue{&c.maxTime}, "retry-max-time", "curl's --retry-max-time: the overall deadline in SECONDS (--timeout);\n0: none")
	fs.VarP(secondsValue{&c.attemptTime}, "max-time", "m", "curl's -m: the longest one attempt may take, in SECONDS\n(--attempt-timeout); 0: no limit")
	fs.BoolVar(&c.allErrors, "retry-all-errors", false, "curl's --retry-all-errors: with -f, retry every status of 400 or more too\n(transport errors are retried without it)")
	fs.BoolVar(&c.connRefused, "retry-connrefused", false, "curl's --retry-connrefused: accepted; refused connections are\nretried without it")
	for _, name := range []string{"retry", "retry-delay", "retry-max-time", "max-time"} {
		fs.Lookup(name).DefValue = ""
	}
}

// apply sets the policy flags that the curl flags given map onto, or returns a usage error
// when a curl flag and the policy flag it stands for are both given.
func (c *curlRetryFlags) apply() error {
	f, given := c.policyFlags, c.fs.Changed
	for _, pair := range [][2]string{{"retry", "attempts"}, {"retry-max-time", "timeout"}, {"max-time", "attempt-timeout"}} {
		if given(pair[0]) && given(pair[1]) {
			return fmt.Errorf("--%s and --%s set the same limit: give one (%s)", pair[0], pair[1], curlMapping[pair[0]])
		}
	}
	if given("retry") {
		f.attempts = c.retries + 1
	}
	if given("retry-max-time") {
		f.timeout = c.maxTime
		if c.maxTime == 0 {
			f.timeout = retry.NoLimit // curl: "zero to not timeout retries"
		}
	}
	if given("max-time") {
		f.attemptTimeout = c.attemptTime // 0: no limit, as curl's -m 0
	}
	if given("retry-delay") && c.delay > 0 { // curl: a delay of zero keeps the default backoff
		for _, name := range []string{"backoff", "base", "multiplier", "max-delay", "jitter"} {
			if given(name) {
				return fmt.Errorf("--retry-delay sets a constant wait; it cannot be combined with --%s", name)
			}
		}
		f.kind, f.base, f.jitter = "constant", c.delay, "none"
		if !given("max-wait") && f.maxWait != retry.NoLimit {
			f.maxWait = max(f.maxWait, c.delay) // a delay over the default 30 s is waited, not cut
		}
	}
	return nil
}

// curlMapping names the policy flag each curl flag of apply stands for.
var curlMapping = map[string]string{
	"retry":          "--retry N is --attempts N+1",
	"retry-max-time": "--retry-max-time S is --timeout S",
	"max-time":       "-m S is --attempt-timeout S",
}

// classifier returns the Policy.Classifier of --retry-all-errors with --fail: every status
// of 400 or more is retried, as curl then retries its error 22; nil otherwise. Transport
// errors need no classifier: retry http retries them all (but those a retry cannot fix, a
// certificate that does not verify, say), where curl retries only timeouts and DNS
// failures by default, refused connections with --retry-connrefused, and the rest with
// --retry-all-errors.
func (c *curlRetryFlags) classifier() func(retry.Outcome) retry.Class {
	if !c.allErrors || !*c.failOnStatus {
		return nil
	}
	return func(o retry.Outcome) retry.Class {
		if o.Err == nil && o.Status >= 400 {
			return retry.ClassRetryable
		}
		return retry.ClassUnspecified
	}
}

// secondsValue is a number of seconds, as curl takes it ("2", "0.5"), or a Go duration
// ("500ms"), zero or more.
type secondsValue struct{ d *time.Duration }

// maxSeconds bounds a secondsValue to what a time.Duration holds (about 292 years).
const maxSeconds = float64(math.MaxInt64 / int64(time.Second))

func (v secondsValue) Set(s string) error {
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) {
		if f < 0 || f > maxSeconds {
			return errSeconds
		}
		*v.d = time.Duration(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return errSeconds
	}
	*v.d = d
	return nil
}

var errSeconds = errors.New("want a number of seconds, zero or more, such as 2 or 0.5 (curl's unit), or a Go duration such as 500ms")

func (v secondsValue) String() string { return strconv.FormatFloat(v.d.Seconds(), 'f', -1, 64) }
func (v secondsValue) Type() string   { return "SECONDS" }
