// Fresh case (issue 36, false findings): not a finding. The attempt turns every non-200
// into an error, but the call's own RetryIf retries only 5xx and 429.
package falsefind

import (
	"errors"
	"fmt"
	"net/http"

	retry "github.com/avast/retry-go/v4"
)

type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("status %d", e.code) }

func getReport(url string) error {
	return retry.Do(func() error {
		resp, err := http.Get(url)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return &statusError{resp.StatusCode}
		}
		return nil
	}, retry.Attempts(4), retry.RetryIf(func(err error) bool {
		var se *statusError
		if errors.As(err, &se) {
			return se.code >= 500 || se.code == http.StatusTooManyRequests
		}
		return true
	}))
}
