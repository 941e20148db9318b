// Seeded from https://github.com/openai/openai-go/issues/495: the SDK's retry loop went
// round after a retryable status without draining and closing the response.
package body

import (
	"context"
	"net/http"
	"time"
)

func execute(ctx context.Context, client *http.Client, req *http.Request, maxRetries int) (*http.Response, error) {
	var res *http.Response
	var err error
	for retryCount := 0; retryCount <= maxRetries; retryCount++ {
		res, err = client.Do(req.WithContext(ctx)) // want `response body not closed before the next attempt`
		if err == nil && res.StatusCode < 500 && res.StatusCode != http.StatusTooManyRequests {
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(retryCount+1) * 500 * time.Millisecond):
		}
	}
	return res, err
}
