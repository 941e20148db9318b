package cancel

import (
	"net/http"
	"time"
)

func loopUntil200(url string) (*http.Response, error) {
	for i := 0; i < 5; i++ {
		resp, err := http.Get(url)
		if err == nil {
			if resp.StatusCode == http.StatusOK { // want `a 400, 403, 404 or 422 response is retried by a hand-written retry loop as if transient`
				return resp, nil
			}
			resp.Body.Close()
		}
		time.Sleep(time.Second)
	}
	return nil, nil
}
