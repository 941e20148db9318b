// Fresh case (issue 36, a response handed to a helper): the attempt function of
// backoff.Retry asks okStatus and returns an error, leaving the body open.
package resphelper

import (
	"fmt"
	"net/http"

	"github.com/cenkalti/backoff/v4"
)

func okStatus(r *http.Response) bool { return r.StatusCode/100 == 2 }

func download(url string, sink func(*http.Response) error) error {
	return backoff.Retry(func() error {
		r, err := http.Get(url) // want `response body not closed before the next attempt`
		if err != nil {
			return err
		}
		if !okStatus(r) {
			return fmt.Errorf("GET %s: %d", url, r.StatusCode)
		}
		defer r.Body.Close()
		return sink(r)
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 4))
}
