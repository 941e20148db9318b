package nested

import (
	"time"

	"github.com/cenkalti/backoff/v4"
)

func namedAttempt(send func() error) error {
	return backoff.Retry(func() error { return sendWithRetries(send) }, backoff.NewExponentialBackOff()) // want `nested retries: sendWithRetries, which retries`
}

func namedAttemptFunction() error {
	return backoff.Retry(retriesAlone, backoff.NewExponentialBackOff()) // want `nested retries: the attempt function retriesAlone retries by itself \(a hand-written retry loop at named_attempt.go:18\)`
}

func retriesAlone() error {
	for i := 0; i < 2; i++ {
		if err := ping(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return nil
}

func ping() error { return nil }
