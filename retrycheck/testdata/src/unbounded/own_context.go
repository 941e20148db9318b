package unbounded

import (
	"context"
	"errors"
	"time"
)

// The attempt gets a context nobody cancels: nothing ends the loop but success.
func ownContext(get func(context.Context) error) error {
	ctx := context.Background()
	for { // want `retry loop has no attempt bound, no deadline and no context check`
		err := get(ctx)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errThrottled) {
			return err
		}
		time.Sleep(time.Second)
	}
}

// The caller's context, but the loop retries every error: it never leaves on one.
func everyError(ctx context.Context, get func(context.Context) error) {
	for { // want `retry loop has no attempt bound, no deadline and no context check`
		if err := get(ctx); err == nil {
			return
		}
		time.Sleep(time.Second)
	}
}
