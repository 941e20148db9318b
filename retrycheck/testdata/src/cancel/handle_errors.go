package cancel

import (
	"context"

	"github.com/failsafe-go/failsafe-go/retrypolicy"
)

func handleErrors() retrypolicy.RetryPolicy[any] {
	return retrypolicy.Builder[any]().HandleErrors(context.DeadlineExceeded).Build() // want `context.DeadlineExceeded handled as retryable`
}
