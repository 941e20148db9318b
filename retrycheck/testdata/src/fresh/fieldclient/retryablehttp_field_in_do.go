// Fresh case (issue 36, a retrying client in a struct field): the constructor builds a
// go-retryablehttp client; a method calls it inside retry.Do.
package fieldclient

import (
	"context"
	"fmt"
	"net/http"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/retrykit/retry"
)

type Registry struct {
	rc   *retryablehttp.Client
	host string
}

func NewRegistry(host string) *Registry {
	c := retryablehttp.NewClient()
	c.RetryMax = 2
	return &Registry{rc: c, host: host}
}

func (r *Registry) Manifest(ctx context.Context, name string) error {
	return retry.Do(ctx, &retry.Policy{MaxAttempts: 3}, func(ctx context.Context) error {
		req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, r.host+"/v2/"+name+"/manifests/latest", nil)
		if err != nil {
			return retry.Permanent(err)
		}
		resp, err := r.rc.Do(req) // want `nested retries: retryablehttp.Client.Do at retryablehttp_field_in_do.go:31 runs inside each attempt of retry.Do \(line 26\): 3 × 3 = 9 calls`
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return retry.Permanent(fmt.Errorf("manifest: %s", resp.Status))
		}
		return nil
	})
}
