// Seeded from https://github.com/dtm-labs/rockscache/pull/20: goroutines waiting to retry
// a locked cache key slept with time.Sleep, past their context's timeout.
package sleep

import (
	"context"
	"errors"
	"time"
)

var errLocked = errors.New("locked")

func fetch(ctx context.Context, get func(context.Context) (string, error), lockSleep time.Duration) (string, error) {
	for {
		v, err := get(ctx)
		if !errors.Is(err, errLocked) {
			return v, err
		}
		time.Sleep(lockSleep) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
}
