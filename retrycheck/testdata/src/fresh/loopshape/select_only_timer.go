// Fresh case (issue 36, loops not recognised): counting from 1 with the bound in the
// body; the wait is a select whose only case is a timer, as deaf to ctx as time.Sleep.
package loopshape

import (
	"context"
	"errors"
	"time"
)

type Queue interface {
	Ack(ctx context.Context, id string) error
}

var ErrGone = errors.New("message gone")

func ackWithRetry(ctx context.Context, q Queue, id string) error {
	delay := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		if err := q.Ack(ctx, id); err == nil || errors.Is(err, ErrGone) {
			return nil
		} else if attempt == 8 {
			return err
		}
		select { // want `a select on a timer alone between attempts ignores cancellation of ctx`
		case <-time.After(delay):
		}
		delay *= 2
	}
}
