package body

import (
	"fmt"
	"net/http"

	"github.com/cenkalti/backoff/v4"
)

// In an attempt function a defer runs before the next attempt.
func closureDefer(client *http.Client, url string) error {
	return backoff.Retry(func() error {
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 500 {
			return fmt.Errorf("server error %d", resp.StatusCode)
		}
		return nil
	}, backoff.NewExponentialBackOff())
}
