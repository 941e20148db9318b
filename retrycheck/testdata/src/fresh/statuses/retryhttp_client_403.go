// Fresh case (issue 36, Policy.RetryableStatuses): a retryhttp client told to retry 403.
package statuses

import (
	"net/http"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

func storageClient() *http.Client {
	return retryhttp.NewClient(&retry.Policy{
		RetryableStatuses: []int{http.StatusForbidden, http.StatusServiceUnavailable}, // want `a 403 response is retried by retry.Policy's RetryableStatuses as if transient`
	})
}
