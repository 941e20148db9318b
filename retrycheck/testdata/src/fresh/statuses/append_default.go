// Fresh case (issue 36, Policy.RetryableStatuses): the default list plus 400, appended.
package statuses

import (
	"slices"

	"github.com/retrykit/retry"
)

func lenientPolicy() *retry.Policy {
	p := &retry.Policy{MaxAttempts: 4}
	p.RetryableStatuses = append(slices.Clone(retry.DefaultRetryableStatuses), 400) // want `a 400 response is retried by retry.Policy's RetryableStatuses as if transient`
	return p
}
