// Fresh case (issue 36, a retrying client in a struct field): go-retryablehttp's default
// CheckRetry sends a POST again after a connection error; the constructor never sets one.
package fieldclient

import (
	"bytes"
	"net/http"

	"github.com/hashicorp/go-retryablehttp"
)

type Webhook struct {
	client *retryablehttp.Client
	target string
}

func NewWebhook(target string) *Webhook {
	return &Webhook{client: retryablehttp.NewClient(), target: target}
}

func (w *Webhook) Deliver(payload []byte) (*http.Response, error) {
	return w.client.Post(w.target, "application/json", bytes.NewReader(payload)) // want `POST sent through retryablehttp.Client.Post`
}
