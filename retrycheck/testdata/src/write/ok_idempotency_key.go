package write

import (
	"bytes"
	"net/http"
	"time"
)

// The key makes the repeat safe under the server's idempotency-key contract.
func withIdempotencyKey(client *http.Client, url, key string, payload []byte) (*http.Response, error) {
	var err error
	for i := 0; i < 3; i++ {
		req, _ := http.NewRequest("POST", url, bytes.NewReader(payload))
		req.Header.Set("Idempotency-Key", key)
		var resp *http.Response
		resp, err = client.Do(req)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
