// Fresh case (issue 36, a compound classifier condition): a named predicate.
package compound

import (
	"context"
	"errors"
	"net"
)

func shouldRetry(err error) bool {
	var nerr net.Error
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		return true // want `context.DeadlineExceeded classified as retryable`
	}
	if errors.As(err, &nerr) && nerr.Timeout() {
		return true
	}
	return false
}
