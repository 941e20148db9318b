package cancel

import (
	"net/http"
	"time"
)

// The status goes to a predicate the analysis cannot read: it may be the whole decision.
func undecided(client *http.Client, req *http.Request, retryable func(int) bool) (*http.Response, error) {
	for i := 0; i < 3; i++ {
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		if !retryable(resp.StatusCode) {
			return resp, nil
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			time.Sleep(2 * time.Second)
		}
		resp.Body.Close()
		time.Sleep(time.Second)
	}
	return nil, nil
}
