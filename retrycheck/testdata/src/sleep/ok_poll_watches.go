package sleep

import (
	"context"
	"time"
)

// Not reported: the poll waits on a timer and the context.
func waitJobChecked(ctx context.Context, api jobAPI, id string) (string, error) {
	for {
		s, err := api.Status(ctx, id)
		if err != nil || s != "running" {
			return s, err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}
