package sleep

import (
	"context"
	"time"
)

// Computed waits whose longest value is under a second: 100 ms, then 200 ms.
func shortComputed(ctx context.Context, suspend func(context.Context) error) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(100*attempt) * time.Millisecond)
		}
		if err = suspend(ctx); err == nil {
			return nil
		}
	}
	return err
}

// A wait held in a variable assigned a short constant, three times: 750 ms in all.
func shortVariable(ctx context.Context, poll func(context.Context) error) error {
	pause := 250 * time.Millisecond
	for i := 0; i < 3; i++ {
		if err := poll(ctx); err == nil {
			return nil
		}
		time.Sleep(pause)
	}
	return nil
}
