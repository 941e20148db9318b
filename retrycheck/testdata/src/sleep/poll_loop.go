package sleep

import (
	"context"
	"time"
)

type jobAPI interface {
	Status(ctx context.Context, id string) (string, error)
}

// A poll for a job's result, not a retry loop (it returns on every error), whose sleep
// still ignores the caller's context (gosnowflake's async results, issue 36).
func waitJob(ctx context.Context, api jobAPI, id string) (string, error) {
	delay := 500 * time.Millisecond
	for {
		s, err := api.Status(ctx, id)
		if err != nil {
			return "", err
		}
		if s != "running" {
			return s, nil
		}
		time.Sleep(delay) // want `time.Sleep between attempts ignores cancellation of ctx`
		delay = min(2*delay, 5*time.Second)
	}
}
