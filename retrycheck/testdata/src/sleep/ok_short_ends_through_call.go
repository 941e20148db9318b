package sleep

import (
	"context"
	"time"
)

type peeker interface {
	Peek(ctx context.Context, seq int64) (int64, error)
}

// Not reported: the poll gives the caller's context to its call and leaves on the call's
// error, so a canceled caller waits at most one 100 ms pause (azservicebus's test helper,
// issue 36).
func waitGone(ctx context.Context, p peeker, seq int64) error {
	for {
		next, err := p.Peek(ctx, seq)
		if err != nil {
			return err
		}
		if next != seq {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}
