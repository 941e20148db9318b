// Seeded from https://github.com/maximilien/softlayer-go/pull/142: placeOrder's POST was
// empty on the second try ("ContentLength=358 with Body length 0, retrying 2 time(s)").
package rewind

import (
	"io"
	"net/http"
	"time"
)

func doHTTPRequest(client *http.Client, url string, requestBody io.Reader, retries int) (*http.Response, error) {
	var err error
	for i := 0; i <= retries; i++ {
		var req *http.Request
		req, err = http.NewRequest("POST", url, requestBody) // want `body requestBody is read to its end by the first attempt`
		if err != nil {
			return nil, err
		}
		var resp *http.Response
		resp, err = client.Do(req)
		if err == nil {
			return resp, nil
		}
		time.Sleep(2 * time.Second)
	}
	return nil, err
}
