package body

import (
	"net/http"
	"time"
)

// A helper given the response may close it.
func helperCloses(url string, check func(*http.Response) bool) (*http.Response, error) {
	for i := 0; i < 5; i++ {
		resp, err := http.Get(url)
		if err == nil && check(resp) {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, nil
}
