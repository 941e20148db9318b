// Fresh case (issue 36, our API as it is): RunIn keeps the loop in a caller-held Loop;
// the attempt still ignores its own context and uses the request's.
package apinow

import (
	"context"
	"io"
	"net/http"

	"github.com/retrykit/retry"
)

type pinger struct {
	loop   retry.Loop
	policy retry.Policy
	client *http.Client
}

func (p *pinger) ping(r *http.Request) error {
	ctx := r.Context()
	_, end, err := retry.RunIn(ctx, &p.loop, &p.policy, retry.Operation[struct{}]{
		Attempt: func(_ context.Context) (struct{}, retry.Outcome) {
			out, err := http.NewRequestWithContext(ctx, "HEAD", "http://upstream/health", nil) // want `the attempt function of retry.RunIn uses the outer ctx instead of its own context parameter`
			if err != nil {
				return struct{}{}, retry.Outcome{Err: err}
			}
			resp, err := p.client.Do(out)
			if err != nil {
				return struct{}{}, retry.Outcome{Err: err}
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return struct{}{}, retry.Outcome{Status: resp.StatusCode}
		},
	})
	end.End()
	return err
}
