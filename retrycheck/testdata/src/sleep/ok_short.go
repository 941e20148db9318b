package sleep

import (
	"context"
	"time"
)

// A constant wait under a second delays cancellation too little to report.
func shortWait(ctx context.Context, call func(context.Context) error) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = call(ctx); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}
