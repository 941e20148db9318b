package sleep

import (
	"context"
	"time"
)

// Short waits, but a hundred of them and no context check: cancellation waits 10 s.
func shortMany(ctx context.Context, remove func() error) error {
	var (
		maxRetries = 100
		retryDelay = 100 * time.Millisecond
		err        error
	)
	for attempt := 1; attempt <= maxRetries; attempt++ {
		if err = remove(); err == nil {
			return nil
		}
		time.Sleep(retryDelay) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
	return err
}
