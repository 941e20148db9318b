package sleep

import (
	"context"
	"errors"
	"log"
	"time"
)

type updates interface {
	Get(ctx context.Context) ([]string, error)
}

// A worker with no way out but failure retries a failed call after a wait deaf to ctx
// (telego's long polling, issue 36); its pause between successful rounds is not a retry.
func pollUpdates(ctx context.Context, u updates, out chan<- string, retry, interval time.Duration) {
	for {
		batch, err := u.Get(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return
			}
			log.Printf("get updates: %v", err)
			time.Sleep(retry) // want `time.Sleep between attempts ignores cancellation of ctx`
			continue
		}
		for _, b := range batch {
			out <- b
		}
		time.Sleep(interval)
	}
}
