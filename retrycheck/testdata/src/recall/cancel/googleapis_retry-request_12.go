// Seeded from https://github.com/googleapis/retry-request/issues/12 (JavaScript; the same
// rule in Go): the default shouldRetry retried every status < 200 or >= 400, a 404
// included.
package cancel

func shouldRetryFn(statusCode int) bool {
	return statusCode < 200 || statusCode >= 400 // want `a 400, 403, 404 or 422 response is classified as retryable`
}
