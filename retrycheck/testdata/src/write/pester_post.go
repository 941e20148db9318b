package write

import (
	"bytes"
	"context"
	"net/http"

	"github.com/sethgrid/pester"
)

// tusd's HTTP hooks (issue 36): a POST through a sethgrid/pester client, which sends it
// again after a connection error or a 5xx.
type hook struct {
	client *pester.Client
	url    string
}

func (h *hook) setup() {
	c := pester.New()
	c.MaxRetries = 3
	h.client = c
}

func (h hook) invoke(ctx context.Context, payload []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", h.url, bytes.NewBuffer(payload))
	if err != nil {
		return nil, err
	}
	return h.client.Do(req) // want `POST sent through pester.Client.Do, which sends it again after a connection error or a 5xx`
}
