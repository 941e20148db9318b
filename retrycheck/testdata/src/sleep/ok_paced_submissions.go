package sleep

import (
	"context"
	"errors"
	"time"
)

type broadcaster interface {
	BroadcastEvidence(ctx context.Context, ev string) (string, error)
}

// Not a retry loop: each pass submits the next piece of evidence, some meant to be
// refused, and returns when one is answered otherwise than expected; the sleep paces the
// submissions (cometbft's e2e runner, issue 36).
func injectEvidence(ctx context.Context, client broadcaster, amount int) error {
	for i := 0; i < amount; i++ {
		validEv := i%4 != 0
		ev := "evidence"
		_, err := client.BroadcastEvidence(ctx, ev)
		if validEv != (err == nil) {
			if err == nil {
				return errors.New("submitting invalid evidence didn't return an error")
			}
			return err
		}
		time.Sleep(5 * time.Second / time.Duration(amount))
	}
	return nil
}
