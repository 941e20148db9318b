// Seeded from https://github.com/runabol/tork/pull/635: the webhook's retry loop closed
// each response with a defer, which runs only after the whole loop.
package body

import (
	"bytes"
	"net/http"
	"time"
)

func callWebhook(client *http.Client, url string, body []byte) error {
	attempts := 1
	for attempts <= 5 {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		resp, err := client.Do(req) // want `response body closed by a defer`
		if err != nil {
			time.Sleep(time.Duration(attempts) * time.Second)
			attempts++
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return nil
		}
		time.Sleep(time.Duration(attempts) * time.Second)
		attempts++
	}
	return nil
}
