// Seeded from https://github.com/kubernetes/client-go/issues/729: each retry derived its
// timeout context from the previous attempt's, so after the first timeout every attempt
// started with its deadline passed.
package attemptctx

import (
	"context"
	"net/http"
	"time"
)

func request(ctx context.Context, client *http.Client, url string, timeout time.Duration) (*http.Response, error) {
	var err error
	for retries := 0; retries < 10; retries++ {
		// recall: missed: a hand-written loop that derives each attempt's context from the
		// last; retryctx looks at the attempt functions of retry libraries
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		var resp *http.Response
		resp, err = client.Do(req)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
