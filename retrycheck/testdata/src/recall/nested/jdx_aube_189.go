// Seeded from https://github.com/jdx/aube/pull/189 (Rust; the same loops in Go): each
// body-decode retry called a send that retried by itself up to retries + 1 times, so a
// transport failure could be retried (retries + 1)² times.
package nested

import (
	"net/http"
	"time"
)

func sendWithRetry(client *http.Client, url string) (*http.Response, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var resp *http.Response
		resp, err = client.Get(url)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		time.Sleep(time.Second)
	}
	return nil, err
}

func fetchPackument(client *http.Client, url string, decode func(*http.Response) error) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var resp *http.Response
		resp, err = sendWithRetry(client, url) // want `nested retries: sendWithRetry, which retries \(a hand-written retry loop at jdx_aube_189.go:13\) runs inside each attempt of a hand-written retry loop \(line 29\): 3 × 3 = 9 calls`
		if err != nil {
			return err
		}
		if err = decode(resp); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
