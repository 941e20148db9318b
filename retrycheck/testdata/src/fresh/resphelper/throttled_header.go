// Fresh case (issue 36, a response handed to a helper): throttled reads a header; the
// 429's body is never closed before the wait.
package resphelper

import (
	"net/http"
	"strconv"
	"time"
)

func throttled(resp *http.Response, err error) (time.Duration, bool) {
	if err != nil || resp.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	return time.Duration(secs) * time.Second, true
}

type Poster struct{ HC *http.Client }

func (p *Poster) Fetch(url string) (*http.Response, error) {
	for attempt := 0; attempt < 6; attempt++ {
		resp, err := p.HC.Get(url) // want `response body not closed before the next attempt`
		if wait, ok := throttled(resp, err); ok {
			time.Sleep(wait)
			continue
		}
		return resp, err
	}
	return nil, errTooMany
}

type tooMany struct{}

func (tooMany) Error() string { return "too many attempts" }

var errTooMany error = tooMany{}
