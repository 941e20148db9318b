package sleep

import (
	"context"
	"net/http"
	"time"
)

// No context is in scope: there is nothing to watch.
func noContext(call func() error) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = call(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// The only contexts are the attempt's own, and one nobody can cancel.
func ownContexts(dial func(context.Context) error) error {
	background := context.Background()
	for {
		ctx, cancel := context.WithTimeout(background, time.Second)
		err := dial(ctx)
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(2 * time.Second)
	}
}

// A request made in the loop carries the attempt's own context, not the caller's.
func requestPerAttempt(client *http.Client, url string) error {
	for i := 0; i < 10; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(time.Second)
	}
	return nil
}

// A request made by http.NewRequest carries context.Background(): nobody cancels it.
func requestWithoutContext(client *http.Client, url string) error {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for i := 0; i < 5; i++ {
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(2 * time.Second)
	}
	return nil
}
