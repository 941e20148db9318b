// Fresh case (issue 36, req.WithContext): not a finding. Each retry resets the body from
// GetBody before sending the derived request.
package withcontext

import (
	"bytes"
	"context"
	"net/http"
	"time"
)

func postReport(ctx context.Context, hc *http.Client, url string, data []byte) error {
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(data))
	if err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		if i > 0 {
			body, err := req.GetBody()
			if err != nil {
				return err
			}
			req.Body = body
		}
		resp, err := hc.Do(req.WithContext(ctx))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return context.DeadlineExceeded
}
