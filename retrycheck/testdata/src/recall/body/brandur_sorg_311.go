// Seeded from https://github.com/brandur/sorg/issues/311: "A simple HTTP retry and
// backoff loop in Go" leaked each failed attempt's response body.
package body

import (
	"math"
	"net/http"
	"time"
)

func getWithBackoff(client *http.Client, url string) (*http.Response, error) {
	const maxRetries = 5
	var resp *http.Response
	var err error
	for attempt := 0; attempt < maxRetries; attempt++ {
		resp, err = client.Get(url) // want `response body not closed before the next attempt`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		time.Sleep(time.Duration(math.Pow(2, float64(attempt))) * time.Second)
	}
	return resp, err
}
