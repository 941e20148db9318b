package cancel

import (
	"fmt"
	"net/http"

	"github.com/cenkalti/backoff/v4"
)

func closureNon2xx(client *http.Client, url string) error {
	return backoff.Retry(func() error {
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("unexpected status %d", resp.StatusCode) // want `a 400, 403, 404 or 422 response is retried by backoff.Retry as if transient`
		}
		return nil
	}, backoff.NewExponentialBackOff())
}
