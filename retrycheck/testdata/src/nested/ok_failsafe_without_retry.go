package nested

import (
	"github.com/avast/retry-go/v4"
	"github.com/failsafe-go/failsafe-go"
)

// A failsafe-go execution without a retry policy makes one attempt.
func failsafeWithoutRetry(breaker failsafe.Policy[any], send func() error) error {
	return retry.Do(func() error {
		return failsafe.Run(send, breaker)
	})
}
