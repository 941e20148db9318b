package attemptctx

import (
	"context"
	"net/http"

	"github.com/retrykit/retry"
)

func outerCtxNamedParam(ctx context.Context, client *http.Client, url string) (*http.Response, error) {
	policy := &retry.Policy{AttemptTimeout: 2e9}
	return retry.DoValue(ctx, policy, func(attemptCtx context.Context) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil) // want `the attempt function of retry.DoValue uses the outer ctx instead of its own context parameter: the attempt's deadline is lost`
		if err != nil {
			return nil, retry.Permanent(err)
		}
		return client.Do(req)
	})
}
