// Fresh case (issue 36, our API as it is): the Attempt of a retry.Operation run by
// retry.Run reaches for the handler's ctx, so AttemptTimeout never applies.
package apinow

import (
	"context"
	"net/http"
	"time"

	"github.com/retrykit/retry"
)

type Fetcher struct {
	hc   *http.Client
	base string
}

func (f *Fetcher) Object(ctx context.Context, key string) (*http.Response, error) {
	pol := &retry.Policy{MaxAttempts: 4, AttemptTimeout: 2 * time.Second}
	resp, fin, err := retry.Run(ctx, pol, retry.Operation[*http.Response]{
		Attempt: func(actx context.Context) (*http.Response, retry.Outcome) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.base+"/"+key, nil) // want `the attempt function of retry.Run uses the outer ctx instead of its own context parameter`
			if err != nil {
				return nil, retry.Outcome{Err: retry.Permanent(err)}
			}
			r, err := f.hc.Do(req)
			if err != nil {
				return nil, retry.Outcome{Err: err}
			}
			return r, retry.Outcome{Status: r.StatusCode}
		},
		Discard: func(r *http.Response) { r.Body.Close() },
	})
	defer fin.End()
	return resp, err
}
