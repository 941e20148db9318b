// Package pester is a stub of github.com/sethgrid/pester for the analyzers' tests.
package pester

import (
	"io"
	"net/http"
	"net/url"
	"time"
)

type Client struct {
	MaxRetries int
	Backoff    func(retry int) time.Duration
	KeepLog    bool
}

func New() *Client { return &Client{MaxRetries: 3} }

func (c *Client) Do(req *http.Request) (*http.Response, error) { return nil, nil }
func (c *Client) Get(url string) (*http.Response, error)       { return nil, nil }
func (c *Client) Head(url string) (*http.Response, error)      { return nil, nil }
func (c *Client) Post(url, bodyType string, body io.Reader) (*http.Response, error) {
	return nil, nil
}
func (c *Client) PostForm(url string, data url.Values) (*http.Response, error) { return nil, nil }
