// Package retryablehttp is a stub of github.com/hashicorp/go-retryablehttp.
package retryablehttp

import (
	"context"
	"net/http"
)

type CheckRetry func(ctx context.Context, resp *http.Response, err error) (bool, error)

type Client struct {
	HTTPClient *http.Client
	RetryMax   int
	CheckRetry CheckRetry
}

type Request struct {
	*http.Request
}

func NewClient() *Client { return &Client{RetryMax: 4} }

func NewRequest(method, url string, rawBody interface{}) (*Request, error) { return nil, nil }

func NewRequestWithContext(ctx context.Context, method, url string, rawBody interface{}) (*Request, error) {
	return nil, nil
}

func (c *Client) Do(req *Request) (*http.Response, error)                 { return nil, nil }
func (c *Client) Get(url string) (*http.Response, error)                  { return nil, nil }
func (c *Client) StandardClient() *http.Client                            { return &http.Client{} }
func Get(url string) (*http.Response, error)                              { return nil, nil }
func Post(url, bodyType string, body interface{}) (*http.Response, error) { return nil, nil }

func (c *Client) Post(url, bodyType string, body interface{}) (*http.Response, error) {
	return nil, nil
}

func DefaultRetryPolicy(ctx context.Context, resp *http.Response, err error) (bool, error) {
	return false, nil
}
