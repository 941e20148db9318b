// Seeded from https://github.com/currents-dev/currents-mcp/issues/163 (TypeScript; the
// same retry in Go): a create sent again after a dropped connection, with no idempotency
// key, makes a second action when the first had been created.
package write

import (
	"bytes"
	"context"
	"net/http"

	"github.com/retrykit/retry"
)

func createAction(ctx context.Context, client *http.Client, url string, action []byte) error {
	return retry.Do(ctx, &retry.Policy{MaxAttempts: 3}, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(action))
		if err != nil {
			return retry.Permanent(err)
		}
		resp, err := client.Do(req) // want `POST sent again by retry.Do after a transport error`
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}
