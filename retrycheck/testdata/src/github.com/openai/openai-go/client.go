// Package openai is a stub of github.com/openai/openai-go.
package openai

import (
	"context"

	"github.com/openai/openai-go/option"
)

type Client struct{ Chat ChatService }

type ChatService struct{ Completions ChatCompletionService }

type ChatCompletionService struct{}

type ChatCompletionNewParams struct{}

type ChatCompletion struct{}

func NewClient(opts ...option.RequestOption) Client { return Client{} }

func (r *ChatCompletionService) New(ctx context.Context, body ChatCompletionNewParams, opts ...option.RequestOption) (*ChatCompletion, error) {
	return nil, nil
}

// Error is the SDK's API error.
type Error struct {
	StatusCode int
	Code       string
	Message    string
}

func (e *Error) Error() string { return e.Message }
