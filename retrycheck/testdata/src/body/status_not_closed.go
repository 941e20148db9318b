package body

import (
	"net/http"
	"time"
)

func statusNotClosed(url string) (*http.Response, error) {
	for i := 0; i < 5; i++ {
		resp, err := http.Get(url) // want `response body not closed before the next attempt \(the path through line 14\): drain and close resp.Body, or its connection is not reused`
		if err == nil && resp.StatusCode == http.StatusOK {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, nil
}
