// Seeded from https://github.com/minio/kes/pull/485: Retry.Do sent the request again on
// a 5xx without draining and closing the response it discarded.
package body

import (
	"net/http"
	"time"
)

func retryDo(client *http.Client, req *http.Request, n int) (*http.Response, error) {
	for i := 0; i < n; i++ {
		resp, err := client.Do(req) // want `response body not closed before the next attempt`
		if err == nil && resp.StatusCode < http.StatusInternalServerError {
			return resp, nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return nil, nil
}
