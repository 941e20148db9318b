// Package nestedlib retries in a function of its own, for the test of nested retries
// across packages (through a fact).
package nestedlib

import (
	"context"
	"net/http"
	"time"
)

// Fetch makes up to 5 attempts.
func Fetch(ctx context.Context, url string) (*http.Response, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var resp *http.Response
		resp, err = http.Get(url)
		if err == nil {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil, err
}

// FetchTwice calls Fetch: it retries through it.
func FetchTwice(ctx context.Context, url string) error {
	_, err := Fetch(ctx, url)
	return err
}
