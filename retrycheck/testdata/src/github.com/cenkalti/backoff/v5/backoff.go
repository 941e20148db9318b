// Package backoff is a stub of github.com/cenkalti/backoff/v5.
package backoff

import "context"

type Operation[T any] func() (T, error)

type RetryOption func(*retryOptions)

type retryOptions struct{ maxTries uint }

func WithMaxTries(n uint) RetryOption { return func(o *retryOptions) { o.maxTries = n } }

func Permanent(err error) error { return err }

func Retry[T any](ctx context.Context, operation Operation[T], opts ...RetryOption) (T, error) {
	return operation()
}
