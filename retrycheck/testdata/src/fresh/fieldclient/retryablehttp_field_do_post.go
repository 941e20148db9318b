// Fresh case (issue 36, a retrying client in a struct field): a POST request built with
// retryablehttp.NewRequest and sent by a field client whose CheckRetry is the default.
package fieldclient

import (
	"context"
	"net/http"

	"github.com/hashicorp/go-retryablehttp"
)

type Billing struct {
	api *retryablehttp.Client
}

func NewBilling() *Billing {
	b := &Billing{}
	b.api = retryablehttp.NewClient()
	b.api.RetryMax = 5
	return b
}

func (b *Billing) Charge(ctx context.Context, body []byte) error {
	req, err := retryablehttp.NewRequestWithContext(ctx, "POST", "https://billing.internal/charges", body)
	if err != nil {
		return err
	}
	resp, err := b.api.Do(req) // want `POST sent through retryablehttp.Client.Do`
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return errStatus(resp.StatusCode)
	}
	return nil
}

type errStatus int

func (e errStatus) Error() string { return http.StatusText(int(e)) }
