// Seeded from https://github.com/istio/istio/pull/42581: retrieving a SPIFFE bundle was
// retried on a status other than 200 without closing the response first.
package body

import (
	"net/http"
	"time"
)

func retrieveBundle(client *http.Client, endpoint string) (*http.Response, error) {
	var resp *http.Response
	var err error
	for retry := 0; retry < 5; retry++ {
		resp, err = client.Get(endpoint) // want `response body not closed before the next attempt`
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode != http.StatusOK {
			b := make([]byte, 1024)
			_, _ = len(b), resp.Status
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, err
}
