package sleep

import (
	"context"
	"time"
)

// A poll loop that returns on every error is not a retry loop, but its wait ignores the
// caller's context all the same (issue 36: gosnowflake's async results).
func poll(ctx context.Context, done func(context.Context) (bool, error)) error {
	for {
		ok, err := done(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		time.Sleep(5 * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
}
