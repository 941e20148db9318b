// Seeded from https://github.com/sourcegraph/sourcegraph-public-snapshot/pull/61280: the
// shared HTTP client retried 400 responses (20 retries by default).
package cancel

import (
	"context"
	"net/http"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

func newClient() *retryablehttp.Client {
	return &retryablehttp.Client{
		RetryMax: 20,
		CheckRetry: func(ctx context.Context, resp *http.Response, err error) (bool, error) {
			if err != nil {
				return true, err
			}
			if resp.StatusCode == 0 || resp.StatusCode >= 400 {
				return true, nil // want `a 400, 403, 404 or 422 response is classified as retryable`
			}
			return false, nil
		},
	}
}
