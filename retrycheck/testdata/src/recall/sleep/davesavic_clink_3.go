// Seeded from https://github.com/davesavic/clink/issues/3: the sleep between retries was
// unaware of a canceled request context.
package sleep

import (
	"net/http"
	"time"
)

func doWithRetries(client *http.Client, req *http.Request, maxRetries int) (*http.Response, error) {
	ctx := req.Context()
	var resp *http.Response
	var err error
	for attempt := 0; attempt <= maxRetries; attempt++ {
		resp, err = client.Do(req.WithContext(ctx))
		if err == nil {
			return resp, nil
		}
		<-time.After(time.Duration(attempt+1) * time.Second) // want `<-time.After between attempts ignores cancellation of ctx`
	}
	return resp, err
}
