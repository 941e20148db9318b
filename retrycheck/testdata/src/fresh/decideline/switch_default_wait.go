// Fresh case (issue 36, where the finding is reported): a tagged switch on the status
// whose default case sends every other status round.
package decideline

import (
	"context"
	"net/http"
	"time"
)

func getToken(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	for n := 0; n < 5; n++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, http.NoBody)
		req.Header.Set("Idempotency-Key", "token-request")
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		switch resp.StatusCode {
		case http.StatusOK:
			return resp, nil
		default: // want `a 400, 403, 404 or 422 response is retried by a hand-written retry loop as if transient`
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(n+1) * 500 * time.Millisecond):
		}
	}
	return nil, context.DeadlineExceeded
}
