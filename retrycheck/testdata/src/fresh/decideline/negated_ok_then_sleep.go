// Fresh case (issue 36, where the finding is reported): any 2xx leaves, every other
// status is closed and waited out; the wait ends the body.
package decideline

import (
	"net/http"
	"time"
)

func pollJob(url string) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i < 10; i++ {
		resp, err = http.Get(url)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode/100 == 2 { // want `a 400, 403, 404 or 422 response is retried by a hand-written retry loop as if transient`
			return resp, nil
		}
		resp.Body.Close()
		time.Sleep(2 * time.Second)
	}
	return resp, err
}
