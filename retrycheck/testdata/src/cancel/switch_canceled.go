package cancel

import "context"

func shouldRetry(err error) bool {
	switch err {
	case context.Canceled:
		return true // want `context.Canceled classified as retryable`
	case nil:
		return false
	}
	return true
}
