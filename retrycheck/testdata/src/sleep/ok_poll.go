package sleep

import (
	"context"
	"time"
)

// A poll loop that returns on every error is not a retry loop.
func poll(ctx context.Context, done func(context.Context) (bool, error)) error {
	for {
		ok, err := done(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		time.Sleep(5 * time.Second)
	}
}
