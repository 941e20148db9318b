// Package retry is a stub of github.com/avast/retry-go/v4.
package retry

import (
	"context"
	"time"
)

type RetryableFunc func() error

type RetryIfFunc func(error) bool

type Option func(*Config)

type Config struct{}

func Attempts(attempts uint) Option                        { return nil }
func Delay(delay time.Duration) Option                     { return nil }
func RetryIf(retryIf RetryIfFunc) Option                   { return nil }
func Context(ctx context.Context) Option                   { return nil }
func Unrecoverable(err error) error                        { return err }
func Do(retryableFunc RetryableFunc, opts ...Option) error { return retryableFunc() }

func DoWithData[T any](retryableFunc func() (T, error), opts ...Option) (T, error) {
	return retryableFunc()
}
