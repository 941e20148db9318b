// Seeded from https://github.com/mautrix/go/pull/268: client requests were retried after
// the context was canceled.
package cancel

import (
	"context"
	"errors"
	"net/http"
)

func isRetryableError(err error, resp *http.Response) bool {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return true // want `context.Canceled classified as retryable`
	case resp != nil && resp.StatusCode >= 500:
		return true
	}
	return false
}
