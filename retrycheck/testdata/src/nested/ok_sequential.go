package nested

import (
	"github.com/avast/retry-go/v4"
)

// Two retry loops one after the other: nothing multiplies.
func sequential(a, b func() error) error {
	if err := retry.Do(a); err != nil {
		return err
	}
	return retry.Do(b)
}
