// Package retrypolicy is a stub of github.com/failsafe-go/failsafe-go/retrypolicy.
package retrypolicy

import (
	"time"

	"github.com/failsafe-go/failsafe-go"
)

type RetryPolicy[R any] interface {
	failsafe.Policy[R]
	IsAbortable(result R, err error) bool
}

type RetryPolicyBuilder[R any] interface {
	WithMaxRetries(maxRetries int) RetryPolicyBuilder[R]
	WithMaxAttempts(maxAttempts int) RetryPolicyBuilder[R]
	WithDelay(delay time.Duration) RetryPolicyBuilder[R]
	HandleIf(predicate func(R, error) bool) RetryPolicyBuilder[R]
	HandleErrors(errs ...error) RetryPolicyBuilder[R]
	Build() RetryPolicy[R]
}

func Builder[R any]() RetryPolicyBuilder[R] { return nil }

func NewWithDefaults[R any]() RetryPolicy[R] { return nil }
