package sleep

import (
	"context"
	"log"
	"time"
)

func noResults(ctx context.Context, connect func() error) {
	timer := 0
	_ = timer
	for i := 0; i < 10; i++ {
		if err := connect(); err == nil {
			return
		} else {
			log.Print(err)
		}
		time.Sleep(2 * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
}
