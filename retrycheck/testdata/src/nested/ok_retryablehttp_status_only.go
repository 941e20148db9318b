package nested

import (
	"context"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

type apiError struct {
	StatusCode int
	Header     string
}

func (e *apiError) Error() string { return e.Header }

type asyncClient struct {
	rc *retryablehttp.Client
}

// exec sends one request through go-retryablehttp, which retries it by itself.
func (c *asyncClient) exec(ctx context.Context) error {
	req, err := retryablehttp.NewRequestWithContext(ctx, "GET", "https://api.example.com/status", nil)
	if err != nil {
		return err
	}
	resp, err := c.rc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return &apiError{StatusCode: resp.StatusCode}
	}
	return nil
}

// Not reported: the loop goes round only on a 404, which go-retryablehttp's default
// policy does not retry, and returns every error the client retried: the attempts do not
// multiply (opsgenie's RetrieveStatus, issue 36).
func (c *asyncClient) retrieveStatus(ctx context.Context) error {
	for i := 0; ; i++ {
		err := c.exec(ctx)
		if err != nil {
			apiErr, ok := err.(*apiError)
			if !ok || apiErr.StatusCode != 404 || apiErr.Header != "RequestNotProcessed" || i >= 4 {
				return err
			}
		} else {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
