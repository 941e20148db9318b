// Seeded from https://github.com/JetBrains/teamcity-cli/pull/345: backoff.Retry's attempt
// returned a retryable 429 or 5xx as an error and dropped the response unclosed.
package body

import (
	"fmt"
	"net/http"

	"github.com/cenkalti/backoff/v4"
)

func withRetry(client *http.Client, req *http.Request) (*http.Response, error) {
	var resp *http.Response
	err := backoff.Retry(func() error {
		r, err := client.Do(req) // want `response body not closed before the next attempt`
		if err != nil {
			return err
		}
		if r.StatusCode == http.StatusTooManyRequests || r.StatusCode >= 500 {
			return fmt.Errorf("retryable status %d", r.StatusCode)
		}
		resp = r
		return nil
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3))
	return resp, err
}
