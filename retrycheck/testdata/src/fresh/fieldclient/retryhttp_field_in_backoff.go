// Fresh case (issue 36, a retrying client in a struct field): an *http.Client from
// retryhttp.NewClient kept in a field, used inside backoff.Retry.
package fieldclient

import (
	"errors"
	"net/http"

	"github.com/cenkalti/backoff/v4"
	"github.com/retrykit/retry"
	"github.com/retrykit/retry/retryhttp"
)

type Notifier struct {
	http *http.Client
	url  string
}

func NewNotifier(url string) *Notifier {
	return &Notifier{http: retryhttp.NewClient(&retry.Policy{MaxAttempts: 3}), url: url}
}

func (n *Notifier) Ping() error {
	return backoff.Retry(func() error {
		resp, err := n.http.Get(n.url) // want `nested retries: retryhttp.NewClient's client at retryhttp_field_in_backoff.go:25 runs inside each attempt of backoff.Retry`
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			return errors.New(resp.Status)
		}
		return nil
	}, backoff.NewExponentialBackOff())
}
