// Fresh case (issue 36, req.WithContext): inside backoff.Retry each attempt derives a
// request with its own timeout from one built outside; the body is shared and drained.
package withcontext

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
)

func register(ctx context.Context, hc *http.Client, form string) error {
	base, err := http.NewRequest("PUT", "https://registry.internal/nodes", strings.NewReader(form))
	if err != nil {
		return err
	}
	return backoff.Retry(func() error {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		r := base.WithContext(actx)
		resp, err := hc.Do(r) // want `request base is built once and sent by every attempt of backoff.Retry`
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			return errUnavailable
		}
		return nil
	}, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

type unavailable struct{}

func (unavailable) Error() string { return "unavailable" }

var errUnavailable error = unavailable{}
