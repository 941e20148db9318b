// Seeded from https://github.com/go-resty/resty/issues/47: retries of a POST did not send
// the request body again.
package rewind

import (
	"net/http"
	"strings"
	"time"
)

func postWithRetries(client *http.Client, url, body string) (*http.Response, error) {
	reader := strings.NewReader(body)
	var resp *http.Response
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		resp, err = client.Post(url, "application/json", reader) // want `body reader is read to its end by the first attempt`
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
