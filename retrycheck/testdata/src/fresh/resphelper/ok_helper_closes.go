// Fresh case (issue 36, a response handed to a helper): not a finding. The helper, in
// another package, closes the body before the loop goes round.
package resphelper

import (
	"context"
	"net/http"
	"time"

	"fresh/resputil"
)

func getStable(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 3; i++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 500 {
			return resp, nil
		}
		resputil.Drain(resp)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil, context.DeadlineExceeded
}
