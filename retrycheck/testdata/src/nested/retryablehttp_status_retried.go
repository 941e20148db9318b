package nested

import (
	"context"
	"errors"
	"time"
)

// The same loop going round on a 429, which go-retryablehttp retried already: reported.
func (c *asyncClient) retrieveStatusOn429(ctx context.Context) error {
	for i := 0; ; i++ {
		err := c.exec(ctx) // want `nested retries: exec, which retries \(retryablehttp.Client.Do`
		if err == nil {
			return nil
		}
		var apiErr *apiError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || i >= 4 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
