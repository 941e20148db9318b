// Package s3 is a stub of github.com/aws/aws-sdk-go-v2/service/s3.
package s3

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
)

type Options struct {
	RetryMaxAttempts int
	Retryer          aws.Retryer
}

type Client struct{ options Options }

type PutObjectInput struct{ Bucket, Key *string }

type PutObjectOutput struct{}

func NewFromConfig(cfg any, optFns ...func(*Options)) *Client { return &Client{} }

func (c *Client) PutObject(ctx context.Context, params *PutObjectInput, optFns ...func(*Options)) (*PutObjectOutput, error) {
	return nil, nil
}
