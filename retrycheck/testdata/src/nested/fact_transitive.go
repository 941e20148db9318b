package nested

import (
	"context"

	"github.com/sethvargo/go-retry"

	"nestedlib"
)

func factTransitive(ctx context.Context, url string) error {
	return retry.Do(ctx, retry.WithMaxRetries(2, retry.NewConstant(1)), func(ctx context.Context) error {
		return retry.RetryableError(nestedlib.FetchTwice(ctx, url)) // want `nested retries: FetchTwice, which retries \(Fetch, which retries \(a hand-written retry loop at fetch.go:14\)\) runs inside each attempt of go-retry Do \(line 12\): 3 × 5 = 15 calls`
	})
}
