package cancel

import "github.com/retrykit/retry"

func policyClassifier() *retry.Policy {
	return &retry.Policy{Classifier: func(o retry.Outcome) retry.Class {
		switch {
		case o.Status >= 400:
			return retry.ClassRetryable // want `a 400, 403, 404 or 422 response is classified as retryable`
		}
		return retry.ClassUnspecified
	}}
}
