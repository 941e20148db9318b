// Seeded from https://github.com/go-pg/pg/pull/1318: the sleep between query retries was
// not canceled with the context.
package sleep

import (
	"context"
	"time"
)

func withRetry(ctx context.Context, maxRetries int, backoff func(int) time.Duration, query func(context.Context) error) error {
	var lastErr error
	for attempt := 0; attempt <= maxRetries; attempt++ {
		if attempt > 0 {
			time.Sleep(backoff(attempt)) // want `time.Sleep between attempts ignores cancellation of ctx`
		}
		lastErr = query(ctx)
		if lastErr == nil {
			return nil
		}
	}
	return lastErr
}
