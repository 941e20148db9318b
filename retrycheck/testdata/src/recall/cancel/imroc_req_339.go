// Seeded from https://github.com/imroc/req/pull/339: the retry condition tested only that
// an error occurred, so a request failed by a canceled context was retried.
package cancel

import "github.com/avast/retry-go/v4"

func requestWithRetry(op func() error) error {
	return retry.Do(op, retry.RetryIf(func(err error) bool {
		// recall: missed: the condition retries every error; nothing names context.Canceled
		return err != nil
	}))
}
