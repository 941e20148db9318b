package nested

import (
	"context"
	"log"
	"time"

	"github.com/avast/retry-go/v4"
)

// A worker loop is not a retry loop: it never leaves on success, so the retry inside it
// does not multiply anything.
func workerLoop(ctx context.Context, next func() (func() error, error)) {
	for {
		job, err := next()
		if err != nil {
			log.Print(err)
			time.Sleep(time.Second)
			continue
		}
		if err := retry.Do(job, retry.Context(ctx)); err != nil {
			log.Print(err)
		}
	}
}
