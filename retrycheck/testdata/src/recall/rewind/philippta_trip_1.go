// Seeded from https://github.com/philippta/trip/issues/1: the retrying RoundTripper did
// not buffer the request body, so from the second try the body was empty with an invalid
// Content-Length.
package rewind

import (
	"net/http"
	"time"
)

type retryRoundTripper struct {
	next     http.RoundTripper
	attempts int
}

func (t retryRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i < t.attempts; i++ {
		resp, err = t.next.RoundTrip(req) // want `request req, the caller.s, is sent by every attempt`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		time.Sleep(time.Duration(i+1) * 100 * time.Millisecond)
	}
	return resp, err
}
