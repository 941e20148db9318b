package retry

import "errors"

// Reason says why a retry loop retried or stopped. The values are stable strings: logs,
// metrics, the command line and tests outside this module depend on them.
type Reason string

// Reasons to retry.
const (
	// ReasonRetryableStatus: the response status is in the policy's retryable list.
	ReasonRetryableStatus Reason = "retryable_status"
	// ReasonRetryableError: the attempt failed with an error the classifier calls transient.
	ReasonRetryableError Reason = "retryable_error"
	// ReasonRetryAfter: the server asked for a wait (Retry-After, or an error made by
	// [After]) and the loop honours it.
	ReasonRetryAfter Reason = "retry_after"
)

// Reasons to stop.
const (
	// ReasonSuccess: the attempt succeeded; the only stop that is not an error.
	ReasonSuccess Reason = "success"
	// ReasonNonRetryableStatus: the response status is not in the retryable list.
	ReasonNonRetryableStatus Reason = "non_retryable_status"
	// ReasonNonRetryableError: the attempt failed with an error the classifier calls
	// permanent (see [Permanent]).
	ReasonNonRetryableError Reason = "non_retryable_error"
	// ReasonAttemptsExhausted: the policy's attempt limit is reached.
	ReasonAttemptsExhausted Reason = "attempts_exhausted"
	// ReasonDeadlineExceeded: the overall deadline (the policy's Timeout or the caller's
	// context deadline, whichever is earlier) has passed. Its error matches
	// context.DeadlineExceeded as well as ErrDeadlineExceeded.
	ReasonDeadlineExceeded Reason = "deadline_exceeded"
	// ReasonWaitExceedsDeadline: the backoff's wait would leave less than the policy's
	// MinAttemptTime before the deadline, so the loop stops now instead of sleeping into
	// it. Its error matches context.DeadlineExceeded as well.
	ReasonWaitExceedsDeadline Reason = "wait_exceeds_deadline"
	// ReasonRetryAfterExceedsDeadline: the server asked for a wait that does not fit before
	// the deadline; the loop never retries earlier than asked. It wins over
	// ReasonRetryAfterExceedsMaxWait when both apply. Its error matches
	// context.DeadlineExceeded as well.
	ReasonRetryAfterExceedsDeadline Reason = "retry_after_exceeds_deadline"
	// ReasonRetryAfterExceedsMaxWait: the server asked for a wait longer than the policy's
	// MaxWait.
	ReasonRetryAfterExceedsMaxWait Reason = "retry_after_exceeds_max_wait"
	// ReasonCanceled: the caller's context was canceled.
	ReasonCanceled Reason = "canceled"
	// ReasonCircuitOpen: a circuit breaker refused the next attempt, or will not admit it in
	// time; Error.RetryAfter says when it admits a trial call.
	ReasonCircuitOpen Reason = "circuit_open"
	// ReasonRetryBudgetExhausted: a retry budget refused the retry.
	ReasonRetryBudgetExhausted Reason = "retry_budget_exhausted"
	// ReasonUnknownOutcome: the attempt may have taken effect (a write sent, no answer);
	// it is never retried blindly.
	ReasonUnknownOutcome Reason = "unknown_outcome"
	// ReasonRateLimitExceedsDeadline: the destination's rate gate (Policy.RateGate) lets the
	// next attempt go later than the deadline allows, so the loop stops at once, sending
	// nothing; Error.RetryAfter says when the gate would have let it go. Its error matches
	// context.DeadlineExceeded as well.
	ReasonRateLimitExceedsDeadline Reason = "rate_limit_exceeds_deadline"
)

// Sentinel errors, one per stop reason: errors.Is(err, ErrAttemptsExhausted) is true for an
// [*Error] whose Reason is ReasonAttemptsExhausted, and so on. They let callers branch on a
// policy stop without confusing it with the transport error under it.
var (
	ErrNonRetryableStatus        = errors.New("retry: " + string(ReasonNonRetryableStatus))
	ErrNonRetryableError         = errors.New("retry: " + string(ReasonNonRetryableError))
	ErrAttemptsExhausted         = errors.New("retry: " + string(ReasonAttemptsExhausted))
	ErrDeadlineExceeded          = errors.New("retry: " + string(ReasonDeadlineExceeded))
	ErrWaitExceedsDeadline       = errors.New("retry: " + string(ReasonWaitExceedsDeadline))
	ErrRetryAfterExceedsDeadline = errors.New("retry: " + string(ReasonRetryAfterExceedsDeadline))
	ErrRetryAfterExceedsMaxWait  = errors.New("retry: " + string(ReasonRetryAfterExceedsMaxWait))
	ErrCanceled                  = errors.New("retry: " + string(ReasonCanceled))
	ErrCircuitOpen               = errors.New("retry: " + string(ReasonCircuitOpen))
	ErrRetryBudgetExhausted      = errors.New("retry: " + string(ReasonRetryBudgetExhausted))
	ErrUnknownOutcome            = errors.New("retry: " + string(ReasonUnknownOutcome))
	ErrRateLimitExceedsDeadline  = errors.New("retry: " + string(ReasonRateLimitExceedsDeadline))
)

// Sentinel returns the sentinel error of a stop reason, or nil for a reason to retry, for
// ReasonSuccess and for an unknown reason.
func (r Reason) Sentinel() error {
	switch r {
	case ReasonNonRetryableStatus:
		return ErrNonRetryableStatus
	case ReasonNonRetryableError:
		return ErrNonRetryableError
	case ReasonAttemptsExhausted:
		return ErrAttemptsExhausted
	case ReasonDeadlineExceeded:
		return ErrDeadlineExceeded
	case ReasonWaitExceedsDeadline:
		return ErrWaitExceedsDeadline
	case ReasonRetryAfterExceedsDeadline:
		return ErrRetryAfterExceedsDeadline
	case ReasonRetryAfterExceedsMaxWait:
		return ErrRetryAfterExceedsMaxWait
	case ReasonCanceled:
		return ErrCanceled
	case ReasonCircuitOpen:
		return ErrCircuitOpen
	case ReasonRetryBudgetExhausted:
		return ErrRetryBudgetExhausted
	case ReasonUnknownOutcome:
		return ErrUnknownOutcome
	case ReasonRateLimitExceedsDeadline:
		return ErrRateLimitExceedsDeadline
	}
	return nil
}

// IsPolicyStop reports whether r is a stop chosen by policy (attempts, deadline, waits,
// breaker, budget, unknown outcome, cancellation) rather than success or a failure the
// classifier called permanent.
func (r Reason) IsPolicyStop() bool {
	switch r {
	case ReasonAttemptsExhausted, ReasonDeadlineExceeded, ReasonWaitExceedsDeadline,
		ReasonRetryAfterExceedsDeadline, ReasonRetryAfterExceedsMaxWait, ReasonCanceled,
		ReasonCircuitOpen, ReasonRetryBudgetExhausted, ReasonUnknownOutcome, ReasonRateLimitExceedsDeadline:
		return true
	}
	return false
}

// isDeadline reports whether r is a stop caused by a deadline: one that has passed, or one
// that a wait would pass. Such a stop's error matches context.DeadlineExceeded.
func (r Reason) isDeadline() bool {
	return r == ReasonDeadlineExceeded || r == ReasonWaitExceedsDeadline || r == ReasonRetryAfterExceedsDeadline ||
		r == ReasonRateLimitExceedsDeadline
}

// IsRetry reports whether r is a reason to retry.
func (r Reason) IsRetry() bool {
	return r == ReasonRetryableStatus || r == ReasonRetryableError || r == ReasonRetryAfter
}
