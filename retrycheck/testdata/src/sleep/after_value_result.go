package sleep

import (
	"context"
	"net/http"
	"time"
)

func afterValueResult(ctx context.Context, client *http.Client, req *http.Request, wait time.Duration) (*http.Response, int, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var resp *http.Response
		resp, err = client.Do(req.WithContext(ctx))
		if err == nil {
			return resp, attempt, nil
		}
		<-time.After(wait) // want `<-time.After between attempts ignores cancellation of ctx`
	}
	return nil, 3, err
}
