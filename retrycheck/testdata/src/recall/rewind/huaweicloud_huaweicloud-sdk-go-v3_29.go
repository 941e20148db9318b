// Seeded from https://github.com/huaweicloud/huaweicloud-sdk-go-v3/issues/29: with retries
// configured, a failed attempt was sent again without building the request anew
// ("http: ContentLength=63 with Body length 0").
package rewind

import (
	"bytes"
	"net/http"
	"time"
)

func syncInvoke(client *http.Client, url string, body []byte, retryTimes int) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewBuffer(body))
	if err != nil {
		return nil, err
	}
	var resp *http.Response
	for i := 0; i <= retryTimes; i++ {
		resp, err = client.Do(req) // want `request req is built once and sent by every attempt`
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
