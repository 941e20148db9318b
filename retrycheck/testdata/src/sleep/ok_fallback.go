package sleep

import (
	"context"
	"time"
)

// The bare sleep is the fallback for a context that cannot be canceled (Done is nil).
func fallback(ctx context.Context, op func() error, next time.Duration) error {
	for i := 0; i < 5; i++ {
		if err := op(); err == nil {
			return nil
		}
		if done := ctx.Done(); done != nil {
			select {
			case <-done:
				return ctx.Err()
			case <-time.After(next):
				continue
			}
		}
		time.Sleep(next)
	}
	return nil
}
