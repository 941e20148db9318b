package write

import (
	"bytes"
	"net/http"
	"time"
)

// Errors end the loop at once and only declined statuses (429, 503) are retried: the
// server did not act on the request, so sending it again is safe.
func declinedOnly(client *http.Client, url string, payload []byte) (*http.Response, error) {
	for i := 0; i < 3; i++ {
		resp, err := client.Post(url, "application/json", bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			resp.Body.Close()
			time.Sleep(2 * time.Second)
			continue
		}
		return resp, nil
	}
	return nil, nil
}
