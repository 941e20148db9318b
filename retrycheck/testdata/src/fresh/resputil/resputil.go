// Package resputil is a helper package of the fresh cases (issue 36): its functions
// read a response without closing it, in another package.
package resputil

import "net/http"

// Retryable reports whether a response's status is worth retrying.
func Retryable(resp *http.Response) bool {
	return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
}

// Drain reads and closes a response's body.
func Drain(resp *http.Response) {
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
}
