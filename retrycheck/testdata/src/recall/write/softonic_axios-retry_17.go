// Seeded from https://github.com/softonic/axios-retry/issues/17 (JavaScript; the same
// retry in Go): a POST that reached the server but whose response timed out was sent
// again, and the server got a duplicate POST.
package write

import (
	"bytes"
	"net/http"

	"github.com/avast/retry-go/v4"
)

func createItem(client *http.Client, url string, item []byte) error {
	return retry.Do(func() error {
		resp, err := client.Post(url, "application/json", bytes.NewReader(item)) // want `POST sent again by retry-go Do after a transport error`
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, retry.Attempts(3))
}
