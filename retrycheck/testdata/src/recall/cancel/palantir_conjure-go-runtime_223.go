// Seeded from https://github.com/palantir/conjure-go-runtime/pull/223: the default client
// retried every 4xx response except 429.
package cancel

import "net/http"

func isRetryableResponse(resp *http.Response) bool {
	if resp.StatusCode == http.StatusTooManyRequests {
		return true
	}
	if resp.StatusCode >= 400 {
		return true // want `a 400, 403, 404 or 422 response is classified as retryable`
	}
	return false
}
