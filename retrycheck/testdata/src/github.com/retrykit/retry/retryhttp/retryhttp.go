// Package retryhttp is a stub of github.com/retrykit/retry/retryhttp.
package retryhttp

import (
	"net/http"

	"github.com/retrykit/retry"
)

type Transport struct {
	Base               http.RoundTripper
	Policy             *retry.Policy
	AutoIdempotencyKey bool
}

func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) { return nil, nil }

func NewClient(p *retry.Policy) *http.Client { return &http.Client{Transport: &Transport{Policy: p}} }
