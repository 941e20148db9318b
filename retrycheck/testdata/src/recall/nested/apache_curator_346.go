// Seeded from https://github.com/apache/curator/pull/346 (Java; the same layering in Go):
// the retry loop got nested for nested API calls, multiplying calls to the retry policy
// beyond its limits.
package nested

import (
	"context"

	"github.com/retrykit/retry"
)

func getData(ctx context.Context, read func(context.Context) ([]byte, error)) ([]byte, error) {
	return retry.DoValue(ctx, &retry.Policy{MaxAttempts: 3}, read)
}

func checkExists(ctx context.Context, read func(context.Context) ([]byte, error)) error {
	return retry.Do(ctx, &retry.Policy{MaxAttempts: 3}, func(ctx context.Context) error {
		_, err := getData(ctx, read) // want `nested retries: getData, which retries \(retry.DoValue at apache_curator_346.go:13\) runs inside each attempt of retry.Do \(line 17\): 3 × 3 = 9 calls`
		return err
	})
}
