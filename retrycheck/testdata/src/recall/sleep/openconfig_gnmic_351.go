// Seeded from https://github.com/openconfig/gnmic/pull/351: "Don't use time.Sleep before
// retry while the context could be cancelled".
package sleep

import (
	"context"
	"time"
)

func subscribe(ctx context.Context, start func(context.Context) error, retryTimer time.Duration) error {
	for {
		err := start(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(retryTimer) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
}
