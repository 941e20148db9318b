package sleep

import (
	"context"
	"time"
)

// No fix is offered: the function has no error to return the context's with.
func noFix(ctx context.Context, try func(context.Context) error) int {
	for i := 0; i < 3; i++ {
		if err := try(ctx); err == nil {
			return i
		}
		time.Sleep(3 * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
	return -1
}
