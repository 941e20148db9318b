// Seeded from https://github.com/Azure/go-autorest/pull/432: retryForIMDS went round
// after a retryable status without reading and closing the previous response.
package body

import (
	"net/http"
	"time"
)

func retryForIMDS(sender *http.Client, req *http.Request, maxAttempts int) (resp *http.Response, err error) {
	attempt := 0
	delay := time.Duration(0)
	for attempt < maxAttempts {
		resp, err = sender.Do(req) // want `response body not closed before the next attempt`
		if err == nil && resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
			return resp, nil
		}
		attempt++
		delay += time.Duration(attempt) * time.Second
		time.Sleep(delay)
	}
	return resp, err
}
