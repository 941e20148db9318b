// Seeded from https://github.com/livekit/agents/pull/5831 (Python; the same classifier in
// Go): 4xx errors were retryable, though a client error keeps failing on retry.
package cancel

import "github.com/retrykit/retry"

func classify(o retry.Outcome) retry.Class {
	if o.Err != nil || o.Status >= 400 {
		return retry.ClassRetryable // want `a 400, 403, 404 or 422 response is classified as retryable`
	}
	return retry.ClassUnspecified
}

var _ = &retry.Policy{Classifier: classify}
