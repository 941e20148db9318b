// Package config is a stub of github.com/aws/aws-sdk-go-v2/config.
package config

import "context"

type LoadOptions struct{ RetryMaxAttempts int }

type Config struct{}

func LoadDefaultConfig(ctx context.Context, optFns ...func(*LoadOptions) error) (Config, error) {
	return Config{}, nil
}

func WithRetryMaxAttempts(n int) func(*LoadOptions) error {
	return func(o *LoadOptions) error { o.RetryMaxAttempts = n; return nil }
}
