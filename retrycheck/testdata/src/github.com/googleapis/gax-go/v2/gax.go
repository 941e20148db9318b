// Package gax is a stub of github.com/googleapis/gax-go/v2.
package gax

import (
	"context"
	"time"
)

type CallSettings struct{}

type CallOption interface{ Resolve(*CallSettings) }

type Retryer interface{}

type APICall func(context.Context, CallSettings) error

func WithRetry(fn func() Retryer) CallOption { return nil }
func WithTimeout(t time.Duration) CallOption { return nil }

func Invoke(ctx context.Context, call APICall, opts ...CallOption) error {
	return call(ctx, CallSettings{})
}
