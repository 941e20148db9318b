// Seeded from https://github.com/gojek/heimdall/issues/145: a canceled request context
// did not interrupt the sleep between HTTP retries.
package sleep

import (
	"net/http"
	"time"
)

func do(client *http.Client, request *http.Request, retryCount int, backoff func(int) time.Duration) (*http.Response, error) {
	ctx := request.Context()
	var err error
	for i := 0; i <= retryCount; i++ {
		var response *http.Response
		response, err = client.Do(request.WithContext(ctx))
		if err == nil && response.StatusCode < 500 {
			return response, nil
		}
		if response != nil {
			response.Body.Close()
		}
		time.Sleep(backoff(i)) // want `time.Sleep between attempts ignores cancellation of ctx`
	}
	return nil, err
}
