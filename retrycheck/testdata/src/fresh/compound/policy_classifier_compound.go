// Fresh case (issue 36, a compound classifier condition): retry.Policy's Classifier
// counts a deadline as retryable, together with timeouts of its own.
package compound

import (
	"context"
	"errors"
	"os"

	"github.com/retrykit/retry"
)

var ingestPolicy = retry.Policy{
	MaxAttempts: 6,
	Classifier: func(o retry.Outcome) retry.Class {
		if o.Err != nil && (errors.Is(o.Err, context.DeadlineExceeded) || errors.Is(o.Err, os.ErrDeadlineExceeded)) {
			return retry.ClassRetryable // want `context.DeadlineExceeded classified as retryable`
		}
		return retry.ClassUnspecified
	},
}
