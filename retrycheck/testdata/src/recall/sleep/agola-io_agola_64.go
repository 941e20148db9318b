// Seeded from https://github.com/agola-io/agola/pull/64: loops slept with time.Sleep and
// so reacted to a context cancel only after the sleep.
package sleep

import (
	"context"
	"time"
)

func lockRetry(ctx context.Context, tryLock func(context.Context) error) error {
	for i := 0; i < 10; i++ {
		err := tryLock(ctx)
		if err == nil {
			return nil
		}
		time.Sleep(2 * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
	return nil
}
