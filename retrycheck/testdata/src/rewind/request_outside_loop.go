package rewind

import (
	"bytes"
	"net/http"
	"time"
)

func requestOutsideLoop(client *http.Client, url string, payload []byte) (*http.Response, error) {
	req, err := http.NewRequest("PUT", url, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	for i := 0; i < 3; i++ {
		resp, err := client.Do(req) // want `request req is built once and sent by every attempt of a hand-written retry loop: its body is read by the first, later attempts send it empty`
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
