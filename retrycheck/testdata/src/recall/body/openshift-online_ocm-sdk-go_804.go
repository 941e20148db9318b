// Seeded from https://github.com/openshift-online/ocm-sdk-go/pull/804: the retry
// RoundTripper tried again after an error status without closing the previous response.
package body

import (
	"net/http"
	"time"
)

type retryTransport struct {
	next    http.RoundTripper
	retries int
}

func (t *retryTransport) RoundTrip(request *http.Request) (*http.Response, error) {
	var response *http.Response
	var err error
	for attempt := 0; attempt <= t.retries; attempt++ {
		response, err = t.next.RoundTrip(request) // want `response body not closed before the next attempt`
		if err != nil {
			return nil, err
		}
		if code := response.StatusCode; code != http.StatusServiceUnavailable && code != http.StatusTooManyRequests {
			return response, nil
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return response, err
}
