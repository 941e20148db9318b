package nested

import (
	"context"

	"github.com/avast/retry-go/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func sdkInRetryGo(ctx context.Context, client *s3.Client, in *s3.PutObjectInput) error {
	return retry.Do(func() error {
		_, err := client.PutObject(ctx, in) // want `nested retries: the AWS SDK's s3.Client.PutObject at sdk_in_retrygo.go:12 runs inside each attempt of retry-go Do \(line 11\): 3 × 3 = 9 calls`
		return err
	}, retry.Attempts(3))
}
