package nested

import (
	"time"

	"github.com/avast/retry-go/v4"
)

type dialer struct{ auth func() error }

// newDialer only stores the callback that retries; it does not run it, so the loop around
// newDialer retries only newDialer.
func newDialer(authenticate func() error) *dialer {
	return &dialer{auth: func() error { return retry.Do(authenticate) }}
}

func reconnect(authenticate func() error, connect func(*dialer) error) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = connect(newDialer(authenticate)); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
