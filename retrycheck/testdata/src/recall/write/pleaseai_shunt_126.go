// Seeded from https://github.com/pleaseai/shunt/issues/126 (Rust; the same loop in Go):
// a timed-out or gateway-failed POST may already have been processed upstream, and the
// retry duplicates a billable generation.
package write

import (
	"bytes"
	"context"
	"net/http"
	"time"
)

func sendWithRetry(ctx context.Context, client *http.Client, url string, body []byte) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req) // want `POST sent again by a hand-written retry loop after a 502 or 504 \(the server may have applied it\)`
		if err != nil {
			return nil, err
		}
		if (resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout) && attempt < 2 {
			resp.Body.Close()
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Second << attempt):
			}
			continue
		}
		return resp, nil
	}
}
