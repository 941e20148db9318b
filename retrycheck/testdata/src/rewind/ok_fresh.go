package rewind

import (
	"bytes"
	"net/http"
	"time"
)

// A request and a reader made in the attempt; a request without a body made before.
func fresh(client *http.Client, url string, payload []byte) (*http.Response, error) {
	get, _ := http.NewRequest("GET", url, nil)
	for i := 0; i < 3; i++ {
		req, _ := http.NewRequest("PUT", url, bytes.NewReader(payload))
		resp, err := client.Do(req)
		if err == nil {
			return resp, nil
		}
		resp, err = client.Do(get)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, nil
}
