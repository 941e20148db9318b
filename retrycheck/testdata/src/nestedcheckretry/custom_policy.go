package nestedcheckretry

import (
	"context"
	"errors"
	"net/http"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

type apiError struct{ StatusCode int }

func (e *apiError) Error() string { return "api error" }

type client struct{ rc *retryablehttp.Client }

// newClient gives go-retryablehttp a policy that retries a 404 as well.
func newClient() *client {
	rc := retryablehttp.NewClient()
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err != nil {
			return true, err
		}
		return resp.StatusCode == 404 || resp.StatusCode >= 500, nil
	}
	return &client{rc: rc}
}

func (c *client) exec(ctx context.Context) error {
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

// The loop goes round only on a 404, but the package's own CheckRetry retries a 404 too:
// reported.
func (c *client) retrieveStatus(ctx context.Context) error {
	for i := 0; ; i++ {
		err := c.exec(ctx) // want `nested retries: exec, which retries \(retryablehttp.Client.Do`
		if err == nil {
			return nil
		}
		var apiErr *apiError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || i >= 4 {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
