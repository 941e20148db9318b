package nested

import (
	"context"

	"github.com/avast/retry-go/v4"

	"nestedlib"
)

func factAcrossPackages(ctx context.Context, url string) error {
	return retry.Do(func() error {
		_, err := nestedlib.Fetch(ctx, url) // want `nested retries: Fetch, which retries \(a hand-written retry loop at fetch.go:14\) runs inside each attempt of retry-go Do \(line 12\): 10 × 5 = 50 calls`
		return err
	})
}
