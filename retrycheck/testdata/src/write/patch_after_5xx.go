package write

import (
	"bytes"
	"context"
	"net/http"
	"time"
)

func patchAfter5xx(ctx context.Context, client *http.Client, url string, payload []byte) error {
	for attempt := 1; attempt <= 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, "PATCH", url, bytes.NewReader(payload))
		if err != nil {
			return err
		}
		resp, err := client.Do(req) // want `PATCH sent again by a hand-written retry loop after a 500, 502 or 504 \(the server may have applied it\)`
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt) * time.Second):
			}
			continue
		}
		return nil
	}
	return nil
}
