package write

import (
	"context"
	"net/http"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

// A CheckRetry of its own may refuse to retry writes.
func retryablehttpCheckRetry(url string, payload []byte) (*http.Response, error) {
	client := retryablehttp.NewClient()
	client.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		return false, err
	}
	return client.Post(url, "application/json", payload)
}
