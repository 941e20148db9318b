package rewind

import (
	"bytes"
	"net/http"
	"time"
)

// GetBody gives each attempt a fresh body.
func withGetBody(client *http.Client, url string, payload []byte) (*http.Response, error) {
	req, _ := http.NewRequest("PUT", url, bytes.NewReader(payload))
	for i := 0; i < 3; i++ {
		if i > 0 {
			req.Body, _ = req.GetBody()
		}
		resp, err := client.Do(req)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, nil
}

// A helper made from the request resets its body before each retry.
func helperRewinds(client *http.Client, req *http.Request, rewinder func(*http.Request) func() error) (*http.Response, error) {
	rewind := rewinder(req)
	for i := 0; i < 3; i++ {
		if i > 0 {
			if err := rewind(); err != nil {
				return nil, err
			}
		}
		resp, err := client.Do(req)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, nil
}
