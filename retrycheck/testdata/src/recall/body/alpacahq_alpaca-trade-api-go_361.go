// Seeded from https://github.com/alpacahq/alpaca-trade-api-go/pull/361 (and its issue
// 307): the retry loop on 429 did not close the body of the response it retried.
package body

import (
	"net/http"
	"time"
)

func doWithRetry(client *http.Client, req *http.Request, retryLimit int) (*http.Response, error) {
	for i := 0; ; i++ {
		resp, err := client.Do(req) // want `response body not closed before the next attempt`
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		if i >= retryLimit {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
}
