// Seeded from https://github.com/newrelic/newrelic-telemetry-sdk-go/pull/17: the same
// request was sent on every retry, its body exhausted by the first.
package rewind

import (
	"bytes"
	"net/http"
	"time"
)

func sendRequest(client *http.Client, url string, payload []byte) (*http.Response, error) {
	req, _ := http.NewRequest("POST", url, bytes.NewReader(payload))
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := client.Do(req) // want `request req is built once and sent by every attempt`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return nil, nil
}
