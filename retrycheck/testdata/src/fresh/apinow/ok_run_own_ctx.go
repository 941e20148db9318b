// Fresh case (issue 36, our API as it is): not a finding. The attempt uses its own
// context; the outer one only for a log line.
package apinow

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/retrykit/retry"
)

func probe(ctx context.Context, hc *http.Client, url string) error {
	_, fin, err := retry.Run(ctx, nil, retry.Operation[int]{
		Attempt: func(actx context.Context) (int, retry.Outcome) {
			slog.InfoContext(ctx, "probing", "url", url)
			req, err := http.NewRequestWithContext(actx, http.MethodGet, url, nil)
			if err != nil {
				return 0, retry.Outcome{Err: retry.Permanent(err)}
			}
			resp, err := hc.Do(req)
			if err != nil {
				return 0, retry.Outcome{Err: err}
			}
			resp.Body.Close()
			return resp.StatusCode, retry.Outcome{Status: resp.StatusCode}
		},
	})
	fin.End()
	return err
}
