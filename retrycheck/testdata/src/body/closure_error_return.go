package body

import (
	"fmt"
	"io"
	"net/http"

	"github.com/cenkalti/backoff/v4"
)

func closureErrorReturn(client *http.Client, url string) ([]byte, error) {
	var data []byte
	err := backoff.Retry(func() error {
		resp, err := client.Get(url) // want `response body not closed before the next attempt \(the path through line 19\)`
		if err != nil {
			return err
		}
		if resp.StatusCode >= 500 {
			return fmt.Errorf("server error %d", resp.StatusCode)
		}
		defer resp.Body.Close()
		data, err = io.ReadAll(resp.Body)
		return err
	}, backoff.NewExponentialBackOff())
	return data, err
}
