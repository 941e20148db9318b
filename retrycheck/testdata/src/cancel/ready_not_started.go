package cancel

import (
	"fmt"
	"net/http"

	"github.com/cenkalti/backoff/v4"
)

// The same wait in a function that started nothing: the service is someone else's, and
// a 404 from it is an answer (the path is wrong), not a server coming up.
func waitForAPI(api string) error {
	return backoff.Retry(func() error {
		res, err := http.Get(api + "/api/v2/messages")
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("expected status code 200 but got: %d", res.StatusCode) // want `a 400, 403, 404 or 422 response is retried by backoff.Retry as if transient`
		}
		return nil
	}, backoff.NewConstantBackOff(0))
}
