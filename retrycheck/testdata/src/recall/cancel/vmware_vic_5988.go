// Seeded from https://github.com/vmware/vic/pull/5988: the image fetcher retried
// unretryable 4xx errors instead of failing fast.
package cancel

import (
	"fmt"
	"net/http"

	"github.com/cenkalti/backoff/v4"
)

func fetch(client *http.Client, url string) error {
	return backoff.Retry(func() error {
		res, err := client.Get(url)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("unexpected http code: %d", res.StatusCode) // want `a 400, 403, 404 or 422 response is retried by backoff.Retry`
		}
		return nil
	}, backoff.NewExponentialBackOff())
}
