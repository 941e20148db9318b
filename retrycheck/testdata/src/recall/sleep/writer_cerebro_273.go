// Seeded from https://github.com/writer/cerebro/issues/273: a hard-coded time.Sleep in the
// webhook delivery retry loop delayed graceful shutdown by the whole wait.
package sleep

import (
	"bytes"
	"context"
	"net/http"
	"time"
)

func deliver(ctx context.Context, client *http.Client, url string, payload []byte, maxAttempts int) error {
	var lastErr error
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(payload))
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 300 {
				return nil
			}
		}
		lastErr = err
		time.Sleep(time.Duration(attempt) * 2 * time.Second) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
	return lastErr
}
