// Package nestedaws holds a package whose AWS clients are configured to make one
// attempt (seaweedfs's S3 cluster tests): a loop around their calls is one layer.
package nestedaws

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func newClient(ctx context.Context) (*s3.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithRetryMaxAttempts(1))
	if err != nil {
		return nil, err
	}
	return s3.NewFromConfig(cfg), nil
}

func waitReady(client *s3.Client, in *s3.PutObjectInput, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err = client.PutObject(ctx, in)
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return err
}
