// Seeded from https://github.com/sourcegraph/sourcegraph-public-snapshot/pull/61280: the
// shared HTTP client retries by itself (20 retries by default), so a caller's own retry
// loop around it multiplies the requests a failing upstream receives.
package nested

import (
	"net/http"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

func callGateway(url string) (*http.Response, error) {
	client := &retryablehttp.Client{RetryMax: 20}
	var err error
	for i := 0; i < 3; i++ {
		var resp *http.Response
		resp, err = client.Get(url) // want `nested retries: retryablehttp.Client.Get at sourcegraph_sourcegraph-public-snapshot_61280.go:18 runs inside each attempt of a hand-written retry loop \(line 16\): 3 × 21 = 63 calls`
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
