// Package option is a stub of github.com/anthropics/anthropic-sdk-go/option.
package option

type RequestOption func()

func WithMaxRetries(retries int) RequestOption { return nil }
