package cancel

import (
	"context"
	"errors"

	"github.com/avast/retry-go/v4"
)

func retryIfCanceled(op func() error, temporary func(error) bool) error {
	return retry.Do(op, retry.RetryIf(func(err error) bool {
		if errors.Is(err, context.Canceled) {
			return true // want `context.Canceled classified as retryable: the caller gave up or its time is over, and a retry cannot change that`
		}
		return temporary(err)
	}))
}
