// Seeded from https://github.com/pulumi/pulumi/pull/1453: the retry loop did not send the
// request body again, and kept the original Content-Length (400s from the ALB).
package rewind

import (
	"bytes"
	"net/http"

	"github.com/avast/retry-go/v4"
)

func doWithRetries(client *http.Client, req *http.Request) (*http.Response, error) {
	var resp *http.Response
	err := retry.Do(func() error {
		var err error
		resp, err = client.Do(req) // want `request req, the caller.s, is sent by every attempt of retry-go Do`
		if err != nil {
			return err
		}
		return nil
	})
	return resp, err
}

func restCall(client *http.Client, url string, body []byte) (*http.Response, error) {
	req, err := http.NewRequest("PATCH", url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	return doWithRetries(client, req)
}
