package nested

import (
	"net/http"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

func retryhttpInFailsafe(url string) (*http.Response, error) {
	client := retryhttp.NewClient(&retry.Policy{MaxAttempts: 2})
	policy := retrypolicy.Builder[*http.Response]().WithMaxRetries(3).Build()
	return failsafe.With(policy).Get(func() (*http.Response, error) {
		return client.Get(url) // want `nested retries: retryhttp.NewClient's client at retryhttp_in_failsafe.go:16 runs inside each attempt of failsafe Executor.Get \(line 15\): 4 × 2 = 8 calls`
	})
}
