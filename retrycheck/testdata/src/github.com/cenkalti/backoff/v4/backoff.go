// Package backoff is a stub of github.com/cenkalti/backoff/v4.
package backoff

import (
	"context"
	"time"
)

const Stop time.Duration = -1

type BackOff interface {
	NextBackOff() time.Duration
	Reset()
}

type BackOffContext interface {
	BackOff
	Context() context.Context
}

type Operation func() error

type Notify func(error, time.Duration)

type ExponentialBackOff struct {
	InitialInterval time.Duration
	MaxElapsedTime  time.Duration
}

func (b *ExponentialBackOff) NextBackOff() time.Duration { return 0 }
func (b *ExponentialBackOff) Reset()                     {}

type ConstantBackOff struct{ Interval time.Duration }

func (b *ConstantBackOff) NextBackOff() time.Duration { return b.Interval }
func (b *ConstantBackOff) Reset()                     {}

func NewExponentialBackOff() *ExponentialBackOff          { return &ExponentialBackOff{} }
func NewConstantBackOff(d time.Duration) *ConstantBackOff { return &ConstantBackOff{d} }
func WithMaxRetries(b BackOff, max uint64) BackOff        { return b }
func WithContext(b BackOff, ctx context.Context) BackOffContext {
	return nil
}

type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }

func Permanent(err error) error                                      { return &PermanentError{err} }
func Retry(o Operation, b BackOff) error                             { return o() }
func RetryNotify(o Operation, b BackOff, n Notify) error             { return o() }
func RetryWithData[T any](o func() (T, error), b BackOff) (T, error) { return o() }
