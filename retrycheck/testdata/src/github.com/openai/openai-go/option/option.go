// Package option is a stub of github.com/openai/openai-go/option.
package option

type RequestOption func()

func WithMaxRetries(retries int) RequestOption { return nil }
