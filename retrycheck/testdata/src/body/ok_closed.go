package body

import (
	"io"
	"net/http"
	"time"
)

// The body is drained and closed before going round.
func closedBeforeRetry(url string) (*http.Response, error) {
	for i := 0; i < 5; i++ {
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode == http.StatusOK {
			return resp, nil
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		time.Sleep(time.Second)
	}
	return nil, nil
}
