// Fresh case (issue 36, loops not recognised): the counter starts at 1 with no
// condition; the bound is in the body and the wait is a bare <-time.After.
package loopshape

import (
	"context"
	"time"
)

type Store interface {
	Put(ctx context.Context, key string, val []byte) error
}

func putRetry(ctx context.Context, s Store, key string, val []byte, max int) error {
	for attempt := 1; ; attempt++ {
		err := s.Put(ctx, key, val)
		if err == nil {
			return nil
		}
		if attempt >= max {
			return err
		}
		<-time.After(time.Duration(attempt) * 2 * time.Second) // want `<-time.After between attempts ignores cancellation of ctx`
	}
}
