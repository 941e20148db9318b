// Fresh case (issue 36, our API as it is): retry.Run sends a POST again after a
// transport error, without an idempotency key.
package apinow

import (
	"bytes"
	"context"
	"net/http"

	"github.com/retrykit/retry"
)

func submitOrder(ctx context.Context, hc *http.Client, body []byte) (*http.Response, error) {
	resp, final, err := retry.Run(ctx, nil, retry.Operation[*http.Response]{
		Attempt: func(ctx context.Context) (*http.Response, retry.Outcome) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://shop.example/orders", bytes.NewReader(body))
			if err != nil {
				return nil, retry.Outcome{Err: retry.Permanent(err)}
			}
			resp, err := hc.Do(req) // want `POST sent again by retry.Run after a transport error`
			if err != nil {
				return nil, retry.Outcome{Err: err}
			}
			return resp, retry.Outcome{Status: resp.StatusCode}
		},
		Discard: func(r *http.Response) { r.Body.Close() },
	})
	final.End()
	return resp, err
}
