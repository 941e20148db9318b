// Seeded from https://github.com/atlassian/gostatsd/pull/19: a bytes.Buffer body consumed
// by the first attempt; backoff retries then posted "ContentLength=257 with Body length 0".
package rewind

import (
	"bytes"
	"net/http"

	"github.com/cenkalti/backoff/v4"
)

func post(client *http.Client, url string, buf *bytes.Buffer) error {
	return backoff.Retry(func() error {
		req, err := http.NewRequest("POST", url, buf) // want `body buf is read to its end by the first attempt of backoff.Retry`
		if err != nil {
			return backoff.Permanent(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, backoff.NewExponentialBackOff())
}
