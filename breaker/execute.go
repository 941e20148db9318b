package breaker

import (
	"context"
	"errors"
	"time"

	"github.com/retrykit/retry"
)

// OpenError is the error of a call the breaker refused without running it. errors.Is
// matches it against retry.ErrCircuitOpen, so one check covers a refusal by [Breaker.Execute]
// and a retry loop stopped by ReasonCircuitOpen.
type OpenError struct {
	// State is the state that refused the call: StateOpen or StateHalfOpen.
	State State
	// RetryIn is how long until the breaker admits a trial call; -1 when it cannot say
	// (HALF_OPEN with all its trial calls in flight: their results decide).
	RetryIn time.Duration
}

// Error says so, e.g. "breaker: circuit OPEN: trial call in 29.5s" or
// "breaker: circuit HALF_OPEN: trial calls in flight".
func (e *OpenError) Error() string {
	if e.RetryIn < 0 {
		return "breaker: circuit " + e.State.String() + ": trial calls in flight"
	}
	return "breaker: circuit " + e.State.String() + ": trial call in " + e.RetryIn.String()
}

// Is reports whether target is retry.ErrCircuitOpen.
func (e *OpenError) Is(target error) bool { return target == retry.ErrCircuitOpen }

// RetryAfter returns RetryIn as a server-requested wait would be given, for callers that
// want to pass it on (e.g. as an HTTP Retry-After); ok is false when RetryIn is unknown.
func (e *OpenError) RetryAfter() (d time.Duration, ok bool) { return e.RetryIn, e.RetryIn >= 0 }

// Execute runs op with ctx if the breaker admits the call, and counts its result; otherwise
// it returns an [*OpenError] at once without running op. It returns op's error unchanged.
//
// op's error is classified as a retry loop would (Config.Classifier, then retry's default
// rules; see retry.Policy.Classify): nil, or an error marked retry.Permanent, counts as a
// success of the service; any other error as a failure, unless ctx has ended (the caller's
// own cancellation), which is not counted, or it says that the service throttled the call
// (a *retry.StatusError or *retry.Error of status 429), which counts as a success. A wait
// the error carries (retry.RetryAfter) is the call's answer's, as for DoneRetryAfter. A
// panic in op or in the Classifier counts as a failure, and goes on up to the caller.
// A nil op returns retry.ErrNilOperation, without asking or telling the breaker anything.
func (b *Breaker) Execute(ctx context.Context, op func(ctx context.Context) error) error {
	if op == nil {
		return retry.ErrNilOperation
	}
	token, refusedBy, retryIn := b.allow()
	if retryIn != 0 {
		return &OpenError{State: refusedBy, RetryIn: retryIn}
	}
	reported := false
	defer func() {
		if !reported {
			b.Done(token, retry.ResultFailure)
		}
	}()
	err := op(ctx)
	var wait time.Duration
	if err != nil {
		wait, _ = retry.RetryAfter(err)
	}
	r := b.resultOf(ctx, err) // the Classifier may panic too: the deferred report counts it
	reported = true
	b.done(token, r, max(0, wait))
	return err
}

// resultOf maps an error to the result a breaker counts, as the retry loop does.
func (b *Breaker) resultOf(ctx context.Context, err error) retry.Result {
	r := retry.ResultOf(b.policy.Classify(retry.Outcome{Err: err}), ctx.Err() != nil)
	if err != nil && r != retry.ResultIgnored && isThrottle(err) {
		return retry.ResultThrottled
	}
	return r
}

// statusTooManyRequests is HTTP's throttle, 429 Too Many Requests (RFC 6585 section 4).
const statusTooManyRequests = 429

// isThrottle reports whether err says that the service throttled the call: a
// *retry.StatusError, or a *retry.Error (a retry loop's stop), of status 429.
func isThrottle(err error) bool {
	if e, ok := errors.AsType[*retry.StatusError](err); ok && e.Status == statusTooManyRequests {
		return true
	}
	e, ok := errors.AsType[*retry.Error](err)
	return ok && e.Status == statusTooManyRequests
}
