package sleep

import (
	"context"
	"time"
)

func sleepErrorResult(ctx context.Context, call func(context.Context) error) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = call(ctx); err == nil {
			return nil
		}
		time.Sleep(time.Duration(i+1) * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx: a canceled caller waits it out, and the loop may start another attempt \(wait on a timer and ctx.Done\(\)\)`
	}
	return err
}
