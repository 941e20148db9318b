// Fresh case (issue 36, a response handed to a helper): the response is logged by a
// helper that reads its status and a header, then the loop sleeps.
package resphelper

import (
	"context"
	"log"
	"net/http"
	"time"
)

func logResponse(what string, r *http.Response) {
	log.Printf("%s: %s (request id %s)", what, r.Status, r.Header.Get("X-Request-Id"))
}

func waitReady(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 10; i++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		res, err := hc.Do(req) // want `response body not closed before the next attempt`
		if err != nil {
			return err
		}
		if res.StatusCode < 500 {
			res.Body.Close()
			return nil
		}
		logResponse("not ready", res)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return context.DeadlineExceeded
}
