package rewind

import (
	"bytes"
	"net/http"
	"time"
)

func readerOutsideLoop(client *http.Client, url string, payload []byte) (*http.Response, error) {
	body := bytes.NewReader(payload)
	for i := 0; i < 3; i++ {
		req, _ := http.NewRequest(http.MethodPut, url, body) // want `body body is read to its end by the first attempt of a hand-written retry loop: later attempts send it empty`
		resp, err := client.Do(req)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, nil
}
