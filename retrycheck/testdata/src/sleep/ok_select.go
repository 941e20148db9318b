package sleep

import (
	"context"
	"time"
)

// The wait watches the context.
func selectOnDone(ctx context.Context, call func(context.Context) error) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = call(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}
