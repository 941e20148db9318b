package cancel

import (
	"context"
	"errors"
	"time"
)

// Not reported: each attempt has a deadline of its own, and the loop checks the caller's.
func createWithAttemptTimeout(ctx context.Context, api bucketAPI, name string) error {
	for ctx.Err() == nil {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		err := api.CreateBucket(actx, name)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			continue
		}
		return err
	}
	return ctx.Err()
}
