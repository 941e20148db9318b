package cancel

import (
	"context"
	"net/http"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

func checkRetry4xx() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if err != nil {
			return true, nil
		}
		if resp.StatusCode >= 400 {
			return true, nil // want `a 400, 403, 404 or 422 response is classified as retryable: the server refused the request and answers the same again`
		}
		return false, nil
	}
	return c
}
