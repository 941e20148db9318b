// Seeded from https://github.com/Eshajha19/agri/issues/154 (JavaScript; the same retry in
// Go): an interceptor retried every request on a 500, POSTs included, duplicating the
// feedback a user submitted.
package write

import (
	"bytes"
	"net/http"
	"time"
)

func submitFeedback(client *http.Client, url string, feedback []byte) error {
	for retries := 0; retries < 3; retries++ {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(feedback))
		if err != nil {
			return err
		}
		resp, err := client.Do(req) // want `POST sent again by a hand-written retry loop after a 500 \(the server may have applied it\)`
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusInternalServerError {
			time.Sleep(time.Second)
			continue
		}
		return nil
	}
	return nil
}
