package sleep

import (
	"context"
	"net/http"
	"time"
)

// The attempt and its rate-limit wait run in a function literal called at once in the
// loop (regclient's reghttp, issue 36).
type mirrorClient struct {
	hc   *http.Client
	next time.Time
}

func (c *mirrorClient) get(ctx context.Context, url string) (*http.Response, error) {
	for i := 0; i < 5; i++ {
		var resp *http.Response
		err := func() error {
			if d := time.Until(c.next); d > 0 {
				time.Sleep(d) // want `time.Sleep between attempts ignores cancellation of ctx`
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return err
			}
			resp, err = c.hc.Do(req)
			return err
		}()
		if err == nil {
			return resp, nil
		}
	}
	return nil, context.DeadlineExceeded
}
