package retryhttp

import (
	"errors"

	"github.com/retrykit/retry"
)

// flagApplied sets MayHaveApplied on the loop's error err when an attempt of the call's
// keyed write reached the server without a decisive answer: whatever the last attempt says,
// that one may have been applied (issue 17 item 6).
func (c *call) flagApplied(err error) {
	var stop *retry.Error
	if c.mayHaveApplied && errors.As(err, &stop) {
		stop.MayHaveApplied = true
	}
}
