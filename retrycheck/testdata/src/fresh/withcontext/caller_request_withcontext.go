// Fresh case (issue 36, req.WithContext): the caller's request is sent by every attempt
// as req.WithContext(ctx), and its body is never reset.
package withcontext

import (
	"context"
	"net/http"
	"time"
)

type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

func DoRetry(ctx context.Context, d Doer, req *http.Request, tries int) (*http.Response, error) {
	var err error
	var resp *http.Response
	for n := 0; n < tries; n++ {
		resp, err = d.Do(req.WithContext(ctx)) // want `request req, the caller's, is sent by every attempt of a hand-written retry loop`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond * time.Duration(n+1)):
		}
	}
	return resp, err
}
