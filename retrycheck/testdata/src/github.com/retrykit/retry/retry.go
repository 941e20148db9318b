// Package retry is a stub of github.com/retrykit/retry for the analyzers' tests.
package retry

import (
	"context"
	"time"
)

const (
	Unlimited         = -1
	NoLimit           = time.Duration(-1)
	NestedRetry       = 0
	NestedSingleShot  = 1
	DefaultMaxAttempt = 3
)

type Class uint8

const (
	ClassUnspecified Class = iota
	ClassSuccess
	ClassRetryable
	ClassPermanent
	ClassUnknown
)

type Outcome struct {
	Err    error
	Status int
}

type Policy struct {
	MaxAttempts    int
	Timeout        time.Duration
	AttemptTimeout time.Duration
	Classifier     func(Outcome) Class
}

type Final struct{}

func (Final) End() {}

func Do(ctx context.Context, p *Policy, op func(ctx context.Context) error) error { return op(ctx) }

func DoValue[T any](ctx context.Context, p *Policy, op func(ctx context.Context) (T, error)) (T, error) {
	return op(ctx)
}

func DoFallback[T any](ctx context.Context, p *Policy, op func(ctx context.Context) (T, error), fallback func(ctx context.Context, err error) (T, error)) (T, error) {
	return op(ctx)
}

func Run[T any](ctx context.Context, p *Policy, op func(ctx context.Context) (T, Outcome), discard func(T)) (T, Final, error) {
	v, _ := op(ctx)
	return v, Final{}, nil
}

func Permanent(err error) error { return err }
