// Fresh case (issue 36, req.WithContext): Clone copies the request but not its body.
package withcontext

import (
	"bytes"
	"context"
	"net/http"
	"time"
)

type uploader struct {
	client *http.Client
}

func (u *uploader) put(ctx context.Context, url string, blob []byte) (*http.Response, error) {
	orig, err := http.NewRequest(http.MethodPut, url, bytes.NewBuffer(blob))
	if err != nil {
		return nil, err
	}
	var lastErr error
	for i := 1; i <= 4; i++ {
		resp, err := u.client.Do(orig.Clone(ctx)) // want `request orig is built once and sent by every attempt of a hand-written retry loop`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		lastErr = err
		t := time.NewTimer(time.Duration(i) * time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return nil, lastErr
}
