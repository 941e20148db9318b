package retryhttp

import (
	"errors"

	"github.com/retrykit/retry"
)

// flagApplied sets MayHaveApplied on the loop's error err when an attempt of the call's
// keyed write reached the server without a decisive answer: whatever the last attempt says,
// that one may have been applied.
func (c *call) flagApplied(err error) {
	if !c.mayHaveApplied.Load() || err == nil {
		return // before errors.As, whose target escapes: no allocation on a call's usual path
	}
	var stop *retry.Error
	if errors.As(err, &stop) {
		stop.MayHaveApplied = true
	}
}
