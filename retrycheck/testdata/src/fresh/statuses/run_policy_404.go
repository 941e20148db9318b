// Fresh case (issue 36, Policy.RetryableStatuses): a 404 added to the statuses retried,
// "because the object may not be replicated yet".
package statuses

import (
	"context"
	"net/http"

	"github.com/retrykit/retry"
)

var objectPolicy = &retry.Policy{
	MaxAttempts:       5,
	RetryableStatuses: []int{http.StatusNotFound, 429, 500, 502, 503, 504}, // want `a 404 response is retried by retry.Policy's RetryableStatuses as if transient`
}

func head(ctx context.Context, hc *http.Client, url string) (int, error) {
	status, fin, err := retry.Run(ctx, objectPolicy, retry.Operation[int]{
		Attempt: func(ctx context.Context) (int, retry.Outcome) {
			req, err := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
			if err != nil {
				return 0, retry.Outcome{Err: retry.Permanent(err)}
			}
			resp, err := hc.Do(req)
			if err != nil {
				return 0, retry.Outcome{Err: err}
			}
			resp.Body.Close()
			return resp.StatusCode, retry.Outcome{Status: resp.StatusCode}
		},
	})
	fin.End()
	return status, err
}
