// Seeded from https://github.com/adamcavendish/aioduct/issues/79 (Rust; the same loop in
// Go): a POST whose response was lost to a timeout was retried, and 5xx were retried for
// POST, PATCH and DELETE alike: double charges, double inserts.
package write

import (
	"bytes"
	"context"
	"net/http"
	"time"
)

func send(ctx context.Context, client *http.Client, method, url string, body []byte) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req) // want `POST sent again by a hand-written retry loop after a transport error`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Second):
		}
	}
	return nil, lastErr
}
