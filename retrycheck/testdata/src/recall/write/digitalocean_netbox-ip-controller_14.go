// Seeded from https://github.com/digitalocean/netbox-ip-controller/pull/14: IPs were
// created twice because go-retryablehttp retried a POST after "connection reset by peer",
// which the server had already applied.
package write

import (
	"bytes"
	"net/http"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

func upsertIP(url string, payload []byte) (*http.Response, error) {
	client := retryablehttp.NewClient()
	client.RetryMax = 3
	req, err := retryablehttp.NewRequest("POST", url, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	return client.Do(req) // want `POST sent through retryablehttp.Client.Do`
}
