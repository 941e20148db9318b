// Seeded from https://github.com/davesavic/clink/issues/5: any request with a body that
// was retried sent an empty body on the later attempts.
package rewind

import (
	"net/http"
	"time"
)

type clinkClient struct {
	http       *http.Client
	maxRetries int
}

func (c *clinkClient) Do(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for attempt := 0; attempt <= c.maxRetries; attempt++ {
		resp, err = c.http.Do(req) // want `request req, the caller.s, is sent by every attempt of a hand-written retry loop and its body never reset`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	return resp, err
}
