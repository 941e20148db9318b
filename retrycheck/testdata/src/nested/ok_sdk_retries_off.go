package nested

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/retrykit/retry"
)

// The SDK's own retries are off for this call: one layer of retries.
func sdkRetriesOff(ctx context.Context, client *s3.Client, in *s3.PutObjectInput) error {
	return retry.Do(ctx, nil, func(ctx context.Context) error {
		_, err := client.PutObject(ctx, in, func(o *s3.Options) { o.Retryer = aws.NopRetryer{} })
		return err
	})
}
