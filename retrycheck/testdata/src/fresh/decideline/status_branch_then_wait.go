// Fresh case (issue 36, where the finding is reported): a branch on any non-2xx status
// records the error, and the loop falls through to its wait.
package decideline

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

func deleteUser(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, url, nil)
		resp, doErr := hc.Do(req)
		if doErr != nil {
			err = doErr
		} else {
			resp.Body.Close()
			if resp.StatusCode >= 300 { // want `a 400, 403, 404 or 422 response is retried by a hand-written retry loop as if transient`
				err = fmt.Errorf("delete %s: %s", url, resp.Status)
			} else {
				return nil
			}
		}
		timer := time.NewTimer(time.Duration(attempt+1) * time.Second)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
	return err
}
