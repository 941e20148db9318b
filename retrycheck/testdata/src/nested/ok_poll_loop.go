package nested

import (
	"context"
	"time"

	"github.com/avast/retry-go/v4"
)

// A poll loop returns on every error: it waits for a state, it does not retry failures.
func pollLoop(ctx context.Context, status func() (bool, error)) error {
	for {
		var done bool
		err := retry.Do(func() error {
			var err error
			done, err = status()
			return err
		}, retry.Context(ctx))
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		time.Sleep(5 * time.Second)
	}
}
