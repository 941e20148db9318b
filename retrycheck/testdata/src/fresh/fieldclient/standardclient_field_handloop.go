// Fresh case (issue 36, a retrying client in a struct field): a StandardClient from
// go-retryablehttp kept in a field and called from a hand-written retry loop.
package fieldclient

import (
	"context"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

type metadataClient struct {
	hc *http.Client
}

func newMetadataClient() *metadataClient {
	rc := retryablehttp.NewClient()
	return &metadataClient{hc: rc.StandardClient()}
}

func (m *metadataClient) token(ctx context.Context) (*http.Response, error) {
	var lastErr error
	for try := 0; try < 4; try++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://169.254.169.254/token", nil)
		resp, err := m.hc.Do(req) // want `nested retries: retryablehttp's StandardClient at standardclient_field_handloop.go:26 runs inside each attempt of a hand-written retry loop`
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
		case <-time.After(time.Duration(try+1) * time.Second):
		}
	}
	return nil, lastErr
}
