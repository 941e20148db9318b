package unbounded

import (
	"context"
	"errors"
	"time"
)

var errThrottled = errors.New("throttled")

// The attempt gets the caller's context and the loop returns any other error (telegraf's
// kinesis consumer): once ctx ends, the attempt fails with ctx's error and the loop
// returns it.
func iterator(ctx context.Context, get func(context.Context) error) error {
	for {
		err := get(ctx)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errThrottled) {
			return err
		}
		time.Sleep(time.Second)
	}
}

// The loop stops on context.Canceled (loki's instance manager).
func runProcess(ctx context.Context, run func(context.Context) error) {
	for {
		err := run(ctx)
		if err != nil && err != context.Canceled {
			time.Sleep(time.Second)
		} else {
			break
		}
	}
}
