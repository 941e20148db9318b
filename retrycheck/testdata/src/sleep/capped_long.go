package sleep

import (
	"errors"
	"time"
)

// Capped, but at 30 s: reported.
func watchIndexesSlowly(timeout time.Duration, opts *indexOptions) error {
	deadline := time.Now().Add(timeout)
	curInterval := time.Second
	for {
		if deadline.Before(time.Now()) {
			return errors.New("timeout")
		}
		online, err := listIndexes(&indexOptions{Context: opts.Context})
		if err != nil {
			return err
		}
		if online {
			return nil
		}
		curInterval *= 2
		if curInterval > 30*time.Second {
			curInterval = 30 * time.Second
		}
		time.Sleep(curInterval) // want `time.Sleep between attempts ignores cancellation of opts.Context`
	}
}
