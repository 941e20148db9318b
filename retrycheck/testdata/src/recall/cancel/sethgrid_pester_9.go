// Seeded from https://github.com/sethgrid/pester/pull/9: every status of 400 or more was
// retried; 4xx means the client erred and a retry will not succeed.
package cancel

import (
	"net/http"
	"time"
)

func pesterDo(client *http.Client, req *http.Request, maxRetries int) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i < maxRetries; i++ {
		resp, err = client.Do(req)
		if err == nil && resp.StatusCode < 400 { // want `a 400, 403, 404 or 422 response is retried`
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(time.Duration(i+1) * time.Second)
	}
	return resp, err
}
