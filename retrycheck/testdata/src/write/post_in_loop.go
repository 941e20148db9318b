package write

import (
	"bytes"
	"net/http"
	"time"
)

func postInLoop(url string, payload []byte) (*http.Response, error) {
	var err error
	for i := 0; i < 3; i++ {
		var resp *http.Response
		resp, err = http.Post(url, "application/json", bytes.NewReader(payload)) // want `POST sent again by a hand-written retry loop after a transport error \(the request may have reached the server\) without an Idempotency-Key`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
