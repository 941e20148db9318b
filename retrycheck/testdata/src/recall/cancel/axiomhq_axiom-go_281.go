// Seeded from https://github.com/axiomhq/axiom-go/pull/281: the client retried
// context.Canceled errors; a canceled context is permanent.
package cancel

import (
	"context"
	"errors"
	"net"
)

func shouldRetry(err error) bool {
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, context.Canceled) {
		return true // want `context.Canceled classified as retryable`
	}
	return false
}
