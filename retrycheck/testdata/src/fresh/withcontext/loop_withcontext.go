// Fresh case (issue 36, req.WithContext): the request and its body are built once; each
// attempt sends a shallow copy made by WithContext, which shares the drained Body.
package withcontext

import (
	"bytes"
	"context"
	"net/http"
	"time"
)

func putConfig(ctx context.Context, hc *http.Client, url string, cfg []byte) error {
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(cfg))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/yaml")
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := hc.Do(req.WithContext(ctx)) // want `request req is built once and sent by every attempt of a hand-written retry loop`
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second << attempt):
		}
	}
	return context.DeadlineExceeded
}
