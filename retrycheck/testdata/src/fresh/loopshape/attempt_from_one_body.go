// Fresh case (issue 36, loops not recognised): the same shape over HTTP, and the body of
// a failed answer is left open.
package loopshape

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

func fetchJSON(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	backoff := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req) // want `response body not closed before the next attempt`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if attempt == 5 {
			return nil, fmt.Errorf("giving up after %d attempts", attempt)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(backoff):
			backoff *= 2
		}
	}
}
