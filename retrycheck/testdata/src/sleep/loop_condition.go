package sleep

import (
	"context"
	"time"
)

// The loop's condition tests the attempt's answer.
func loopCondition(ctx context.Context, find func(context.Context) (string, error), again func(string, error) bool) (string, error) {
	v, err := find(ctx)
	for again(v, err) {
		time.Sleep(2 * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
		v, err = find(ctx)
	}
	return v, err
}
