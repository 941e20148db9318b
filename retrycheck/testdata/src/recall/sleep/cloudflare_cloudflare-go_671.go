// Seeded from https://github.com/cloudflare/cloudflare-go/pull/671: the backoff between
// retries did not check the context's deadline or cancellation.
package sleep

import (
	"context"
	"net/http"
	"time"
)

func makeRequest(ctx context.Context, client *http.Client, method, uri string, maxRetries int) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i <= maxRetries; i++ {
		if i > 0 {
			sleepDuration := time.Duration(1<<uint(i)) * time.Second
			time.Sleep(sleepDuration) // want `time.Sleep between attempts ignores cancellation of ctx`
		}
		req, _ := http.NewRequestWithContext(ctx, method, uri, nil)
		resp, err = client.Do(req)
		if err != nil {
			continue
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
	return resp, err
}
