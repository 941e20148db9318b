// Fresh case (issue 36, false findings): not a finding. failsafe-go's policy handles
// only errors it marks transient; the attempt's 4xx error is not one.
package falsefind

import (
	"errors"
	"net/http"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
)

var errTransient = errors.New("transient")

func fetchDoc(url string) ([]byte, error) {
	policy := retrypolicy.Builder[[]byte]().
		WithMaxRetries(2).
		HandleIf(func(_ []byte, err error) bool { return errors.Is(err, errTransient) }).
		Build()
	return failsafe.Get(func() ([]byte, error) {
		resp, err := http.Get(url)
		if err != nil {
			return nil, errors.Join(errTransient, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 500 {
			return nil, errTransient
		}
		if resp.StatusCode != http.StatusOK {
			return nil, errors.New(resp.Status)
		}
		return nil, nil
	}, policy)
}
