package write

import (
	"bytes"
	"net/http"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

func retryablehttpPost(url string, payload []byte) (*http.Response, error) {
	client := retryablehttp.NewClient()
	req, err := retryablehttp.NewRequest(http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	return client.Do(req) // want `POST sent through retryablehttp.Client.Do, which sends it again after a connection error or a 5xx, without an Idempotency-Key`
}
