package unbounded

import (
	"time"

	"github.com/cenkalti/backoff/v4"
)

func backoffConstant(op func() error) error {
	return backoff.Retry(op, backoff.NewConstantBackOff(time.Second)) // want `backoff.Retry is configured with no attempt bound and no deadline`
}
