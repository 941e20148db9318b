// Fresh case (issue 36, a response handed to a helper): the helper is in another package
// and only reads the status.
package resphelper

import (
	"context"
	"net/http"
	"time"

	"fresh/resputil"
)

func listItems(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	for i := range 4 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := hc.Do(req) // want `response body not closed before the next attempt`
		if err != nil {
			return nil, err
		}
		if !resputil.Retryable(resp) {
			return resp, nil
		}
		t := time.NewTimer(time.Duration(i+1) * 300 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return nil, context.DeadlineExceeded
}
