// Fresh case (issue 36, a response handed to a helper): failure only reads the status;
// the body of a 503 stays open when the loop goes round.
package resphelper

import (
	"context"
	"net/http"
	"time"
)

func failure(resp *http.Response, err error) bool {
	return err != nil || resp.StatusCode >= 500
}

func getWithRetry(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	for n := 0; n < 3; n++ {
		resp, err := c.Do(req) // want `response body not closed before the next attempt`
		if !failure(resp, err) {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return nil, context.DeadlineExceeded
}
