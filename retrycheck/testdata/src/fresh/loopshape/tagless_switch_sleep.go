// Fresh case (issue 36, loops not recognised): success is a case of a tagless switch; the
// wait is time.Sleep while ctx is in scope.
package loopshape

import (
	"context"
	"net/http"
	"time"
)

func callAPI(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	var lastErr error
	for i := 0; i < 5; i++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := c.Do(req)
		switch {
		case err != nil:
			lastErr = err
		case resp.StatusCode < 300:
			return resp, nil
		case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
			resp.Body.Close()
			lastErr = errRetryable
		default:
			return resp, nil
		}
		time.Sleep(time.Duration(i+1) * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
	return nil, lastErr
}

type retryableErr struct{}

func (retryableErr) Error() string { return "retryable status" }

var errRetryable error = retryableErr{}
