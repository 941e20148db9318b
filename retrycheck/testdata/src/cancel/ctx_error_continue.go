package cancel

import (
	"context"
	"errors"
)

type bucketAPI interface {
	CreateBucket(ctx context.Context, name string) error
}

// kine's startup loop (issue 36): a deadline of the caller's context retried at once.
func createBucket(ctx context.Context, api bucketAPI, name string) error {
	for {
		err := api.CreateBucket(ctx, name)
		if err == nil {
			return nil
		}
		if errors.Is(err, context.DeadlineExceeded) { // want `context.DeadlineExceeded retried by the loop: once ctx is done every call fails with it at once`
			continue
		}
		return err
	}
}
