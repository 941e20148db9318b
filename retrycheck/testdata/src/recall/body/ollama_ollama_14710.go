// Seeded from https://github.com/ollama/ollama/pull/14710: defer resp.Body.Close() inside
// the upload's retry loop kept every attempt's body open until the function returned.
package body

import (
	"context"
	"net/http"
	"time"
)

func finalizeUpload(ctx context.Context, client *http.Client, url string) error {
	for try := 0; try < 5; try++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPut, url, nil)
		resp, err := client.Do(req) // want `response body closed by a defer, which runs only when the function returns`
		if err != nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusCreated {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil
}
