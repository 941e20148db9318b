// Fresh case (issue 36, Policy.RetryableStatuses): not a finding. Only statuses that
// say "try later" are listed.
package statuses

import (
	"net/http"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

func gentleClient() *http.Client {
	return retryhttp.NewClient(&retry.Policy{
		RetryableStatuses: []int{http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests, 503},
	})
}
