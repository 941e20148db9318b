// Seeded from https://github.com/oracle/oci-go-sdk/issues/133: the retry's sleep could not
// be canceled with the context; it should select on time.After and ctx.Done().
package sleep

import (
	"context"
	"time"
)

func retry(ctx context.Context, op func(context.Context) error, attempts uint, wait func(uint) time.Duration) error {
	var err error
	for i := uint(0); i < attempts; i++ {
		if err = op(ctx); err == nil {
			return nil
		}
		time.Sleep(wait(i)) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
	return err
}
