package rewind

import (
	"context"
	"net/http"
	"strings"

	"github.com/retrykit/retry"
)

func closureCapturesRequest(ctx context.Context, client *http.Client, url, doc string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, url, strings.NewReader(doc))
	return retry.Do(ctx, nil, func(ctx context.Context) error {
		resp, err := client.Do(req) // want `request req is built once and sent by every attempt of retry.Do`
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}
