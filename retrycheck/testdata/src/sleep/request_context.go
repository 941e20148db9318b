package sleep

import (
	"net/http"
	"time"
)

// The request carries the caller's context.
func requestContext(client *http.Client, req *http.Request) (*http.Response, error) {
	var err error
	for i := 0; i < 4; i++ {
		var resp *http.Response
		resp, err = client.Do(req)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Duration(i+1) * time.Second) // want `time.Sleep between attempts ignores cancellation of req.Context\(\)`
	}
	return nil, err
}
