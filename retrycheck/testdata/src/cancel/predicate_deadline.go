package cancel

import (
	"context"
	"errors"
	"net"
)

func isRetryable(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() // want `context.DeadlineExceeded classified as retryable`
}
