// Fresh case (issue 36, Policy.RetryableStatuses): a Transport's policy built in steps,
// its list set from a variable.
package statuses

import (
	"net/http"

	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

func newTransport(base http.RoundTripper) *retryhttp.Transport {
	retryOn := []int{http.StatusUnprocessableEntity, http.StatusBadGateway} // want `a 422 response is retried by retry.Policy's RetryableStatuses as if transient`
	pol := retry.Policy{MaxAttempts: 3}
	pol.RetryableStatuses = retryOn
	return &retryhttp.Transport{Base: base, Policy: &pol}
}
