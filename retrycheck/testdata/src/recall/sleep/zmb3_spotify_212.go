// Seeded from https://github.com/zmb3/spotify/pull/212: the wait before retrying a
// rate-limited call ignored the context passed into the function.
package sleep

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

func execute(ctx context.Context, client *http.Client, req *http.Request) (*http.Response, error) {
	for {
		resp, err := client.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		resp.Body.Close()
		seconds, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		time.Sleep(time.Duration(seconds) * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
}
