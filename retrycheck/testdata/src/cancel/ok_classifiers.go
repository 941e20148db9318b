package cancel

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/cenkalti/backoff/v4"
)

// The context's errors are not retried.
func isRetryableError(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return err != nil
}

// Only 429 and 5xx are retried; other 4xx are permanent.
func shouldRetryStatus(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// A 4xx is marked permanent.
func permanent4xx(client *http.Client, url string) error {
	return backoff.Retry(func() error {
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		switch {
		case resp.StatusCode >= 500:
			return fmt.Errorf("server error %d", resp.StatusCode)
		case resp.StatusCode >= 400:
			return backoff.Permanent(fmt.Errorf("client error %d", resp.StatusCode))
		}
		return nil
	}, backoff.NewExponentialBackOff())
}
