// Fresh case (issue 36, where the finding is reported): only a 200 leaves; everything
// else, a 404 included, falls through to the wait. The decision is the success check.
package decideline

import (
	"context"
	"io"
	"net/http"
	"time"
)

func fetchProfile(ctx context.Context, hc *http.Client, url string) ([]byte, error) {
	var lastErr error
	for i := 0; i < 4; i++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := hc.Do(req)
		if err == nil && resp.StatusCode == http.StatusOK { // want `a 400, 403, 404 or 422 response is retried by a hand-written retry loop as if transient`
			defer resp.Body.Close()
			return io.ReadAll(resp.Body)
		}
		if err == nil {
			resp.Body.Close()
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil, lastErr
}
