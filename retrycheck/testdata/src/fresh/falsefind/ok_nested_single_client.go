// Fresh case (issue 36, false findings): not a finding. A retryhttp client whose policy
// makes a single attempt inside another loop of this project.
package falsefind

import (
	"context"
	"net/http"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

var api = retryhttp.NewClient(&retry.Policy{Nested: retry.NestedSingleAttempt})

func fetchAll(ctx context.Context, urls []string) error {
	return retry.Do(ctx, nil, func(ctx context.Context) error {
		for _, u := range urls {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if err != nil {
				return retry.Permanent(err)
			}
			resp, err := api.Do(req)
			if err != nil {
				return err
			}
			resp.Body.Close()
		}
		return nil
	})
}
