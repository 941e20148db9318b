package write

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/cenkalti/backoff/v4"
)

func newRequestInBackoff(client *http.Client, url string, payload []byte) error {
	return backoff.Retry(func() error {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(payload))
		if err != nil {
			return backoff.Permanent(err)
		}
		resp, err := client.Do(req) // want `POST sent again by backoff.Retry after a transport error`
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return backoff.Permanent(fmt.Errorf("status %d", resp.StatusCode))
		}
		return nil
	}, backoff.NewExponentialBackOff())
}
