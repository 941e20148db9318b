// Seeded from https://github.com/avast/retry-go/issues/43 (and 41): retry.Attempts(0),
// since v4 "infinite attempts", retries a failure that never heals for ever.
package unbounded

import "github.com/avast/retry-go/v4"

func bootstrap(fetch func() error) error {
	return retry.Do(fetch, retry.Attempts(0)) // want `retry-go Do is configured with no attempt bound and no deadline`
}
