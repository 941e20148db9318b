package retryhttp

import (
	"context"

	"github.com/retrykit/retry/internal/requestlabel"
)

// labeled returns ctx carrying the call's method and redacted URL when its decisions are
// recorded, so that a decision the loop makes before any attempt (a circuit breaker's
// refusal, a caller that gave up first) names the request like every other (issue 17
// item 1). Without a recorder it returns ctx itself: no allocation.
func (c *call) labeled(ctx context.Context) context.Context {
	if c.method == "" {
		return ctx
	}
	return requestlabel.With(ctx, c.method, c.url)
}
