// Fresh case (issue 36, a compound classifier condition): go-retryablehttp's
// CheckRetry, which should stop once the request's context is done.
package compound

import (
	"context"
	"errors"
	"net/http"

	"github.com/hashicorp/go-retryablehttp"
)

func newAPIClient() *retryablehttp.Client {
	c := retryablehttp.NewClient()
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err != nil && !errors.Is(err, http.ErrUseLastResponse) && errors.Is(err, context.Canceled) {
			return true, nil // want `context.Canceled classified as retryable`
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	return c
}
