package unbounded

import "github.com/avast/retry-go/v4"

func retryGoAttempts0(op func() error) error {
	return retry.Do(op, retry.Attempts(0)) // want `retry-go Do is configured with no attempt bound and no deadline`
}
