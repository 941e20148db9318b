// Package anthropic is a stub of github.com/anthropics/anthropic-sdk-go.
package anthropic

import (
	"context"

	"github.com/anthropics/anthropic-sdk-go/option"
)

type Client struct{ Messages MessageService }

type MessageService struct{}

type MessageNewParams struct{}

type Message struct{}

func NewClient(opts ...option.RequestOption) Client { return Client{} }

func (r *MessageService) New(ctx context.Context, body MessageNewParams, opts ...option.RequestOption) (*Message, error) {
	return nil, nil
}
