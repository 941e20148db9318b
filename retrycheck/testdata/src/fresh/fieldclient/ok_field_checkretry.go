// Fresh case (issue 36, a retrying client in a struct field): not a finding. The
// constructor gives the client a CheckRetry of its own.
package fieldclient

import (
	"bytes"
	"context"
	"net/http"

	"github.com/hashicorp/go-retryablehttp"
)

type Events struct {
	c *retryablehttp.Client
}

func NewEvents() *Events {
	c := retryablehttp.NewClient()
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err != nil {
			return false, err // a write: never sent again after a connection error
		}
		return resp.StatusCode == http.StatusServiceUnavailable, nil
	}
	return &Events{c: c}
}

func (e *Events) Publish(data []byte) error {
	resp, err := e.c.Post("https://events.internal/v1", "application/json", bytes.NewReader(data))
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
